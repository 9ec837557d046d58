<?php

declare(strict_types=1);

namespace Dzpay\Tests;

use Dzpay\Partner\PartnerResponse;
use Dzpay\Partner\ProductLookup;
use Dzpay\Partner\RequestVerification;
use Dzpay\Webhook\Signature;
use Dzpay\Webhook\WebhookEvent;
use Dzpay\Webhook\WebhookReceiver;
use PHPUnit\Framework\TestCase;

/**
 * The partner's side: the product lookup (dzpay's Bearer secret and timestamp, the
 * answers it expects) and the webhook receiver's answers.
 */
final class PartnerTest extends TestCase
{
    private const NOW = 1741944413;

    /** @return array<string, string> */
    private static function dzpayHeaders(string $secret = 'api-secret', int $timestamp = self::NOW): array
    {
        return ['Authorization' => "Bearer $secret", 'X-Timestamp' => (string) $timestamp, 'Accept' => 'application/json'];
    }

    public function testDzpaysRequestIsRecognised(): void
    {
        self::assertTrue(ProductLookup::verifyRequest(self::dzpayHeaders(), 'api-secret', 300, self::NOW)->ok);
        self::assertTrue(ProductLookup::verifyRequest(['authorization' => 'bearer api-secret', 'x-timestamp' => (string) self::NOW], 'api-secret', 300, self::NOW)->ok);
        $cases = [
            [self::dzpayHeaders('another'), RequestVerification::BAD_SECRET],
            [self::dzpayHeaders('api-secre'), RequestVerification::BAD_SECRET],
            [self::dzpayHeaders('api-secret', self::NOW - 301), RequestVerification::STALE_TIMESTAMP],
            [['X-Timestamp' => (string) self::NOW], RequestVerification::MISSING_HEADERS],
            [['Authorization' => 'Basic api-secret', 'X-Timestamp' => (string) self::NOW], RequestVerification::MISSING_HEADERS],
            [['Authorization' => 'Bearer api-secret', 'X-Timestamp' => 'yesterday'], RequestVerification::MISSING_HEADERS],
        ];
        foreach ($cases as [$headers, $reason]) {
            $result = ProductLookup::verifyRequest($headers, 'api-secret', 300, self::NOW);
            self::assertFalse($result->ok);
            self::assertSame($reason, $result->reason, json_encode($headers));
        }
    }

    public function testTheLookupAnswersProductsErrorsAnd401(): void
    {
        $lookup = new ProductLookup('api-secret', static function (string $reference) {
            return match ($reference) {
                'BOOK/42 #1' => ['reference' => 'BOOK/42 #1', 'amount' => 1500.5, 'label' => 'Nedjma', 'stock' => 3],
                'SOLD' => ProductLookup::error(ProductLookup::ALREADY_PAID, 'sold'),
                'BROKEN' => throw new \RuntimeException('database down'),
                default => ProductLookup::error(ProductLookup::NOT_FOUND, 'no such book'),
            };
        });
        $product = $lookup->handle('BOOK/42 #1', self::dzpayHeaders(), self::NOW);
        self::assertSame(200, $product->status);
        self::assertSame('{"reference":"BOOK/42 #1","amount":1500.5,"currency":"DZD","label":"Nedjma"}', $product->json(), 'unknown fields dropped, currency added');
        self::assertSame([409, ['error' => 'ALREADY_PAID', 'errorMessage' => 'sold']], [$lookup->handle('SOLD', self::dzpayHeaders(), self::NOW)->status, $lookup->handle('SOLD', self::dzpayHeaders(), self::NOW)->body]);
        self::assertSame(404, $lookup->handle('NOPE', self::dzpayHeaders(), self::NOW)->status);
        $previous = ini_set('error_log', '/dev/null');
        try {
            $broken = $lookup->handle('BROKEN', self::dzpayHeaders(), self::NOW);
        } finally {
            ini_set('error_log', (string) $previous);
        }
        self::assertSame([503, 'SERVICE_UNAVAILABLE'], [$broken->status, $broken->body['error']]);
        $refused = $lookup->handle('BOOK/42 #1', self::dzpayHeaders('guess'), self::NOW);
        self::assertSame([401, 'UNAUTHORIZED'], [$refused->status, $refused->body['error']]);
    }

    public function testProductsAreCheckedAsDzpayChecksThem(): void
    {
        self::assertSame(1500, ProductLookup::product(['reference' => 'A', 'amount' => 1500])->body['amount']);
        self::assertSame(0.29, ProductLookup::product(['reference' => 'A', 'amount' => 0.29])->body['amount']);
        self::assertSame('{"reference":"A","amount":1.5,"currency":"DZD","metadata":{}}', ProductLookup::product(['reference' => 'A', 'amount' => 1.5, 'metadata' => []])->json());
        $refused = [
            ['reference' => 'A', 'amount' => 1.005],
            ['reference' => 'A', 'amount' => 0],
            ['reference' => 'A', 'amount' => '1500'],
            ['reference' => '', 'amount' => 1],
            ['reference' => str_repeat('é', 256), 'amount' => 1],
            ['reference' => 'A', 'amount' => 1, 'currency' => 'EUR'],
            ['reference' => 'A', 'amount' => 1, 'label' => str_repeat('x', 201)],
            ['reference' => 'A', 'amount' => 1, 'metadata' => [1, 2]],
        ];
        foreach ($refused as $product) {
            try {
                ProductLookup::product($product);
                self::fail('accepted ' . json_encode($product));
            } catch (\InvalidArgumentException) {
                self::addToAssertionCount(1);
            }
        }
        self::assertSame(255, strlen(ProductLookup::product(['reference' => str_repeat('a', 255), 'amount' => 1])->body['reference']));
    }

    public function testTheReferenceIsTakenFromThePathAndDecoded(): void
    {
        self::assertSame('BOOK/42 #1', ProductLookup::referenceFromUri('/dzpay/BOOK%2F42%20%231?x=1', '/dzpay'));
        self::assertSame('é', ProductLookup::referenceFromUri('/%C3%A9'));
        self::assertNull(ProductLookup::referenceFromUri('/other/BOOK-42', '/dzpay'));
        self::assertNull(ProductLookup::referenceFromUri('/dzpay/', '/dzpay/'));
        self::assertNull(ProductLookup::referenceFromUri('/dzpay/a/b', '/dzpay'));
    }

    public function testTheReceiverAnswersAsDzpayExpects(): void
    {
        $body = '{"id":"e1","type":"payment.success","createdAt":"2025-03-14T09:26:53.000Z","data":{"paymentId":"p1","reference":"BOOK-42","channel":"AGENCY","amount":1500.5,"currency":"DZD","status":"success","orderId":"o1","paidAt":"2025-03-14T09:26:52.000Z","metadata":null,"failureReason":null}}';
        $test = '{"id":"t1","type":"webhook.test","createdAt":"2025-03-14T09:26:53.000Z","data":{"message":"hi"}}';
        $sign = static fn (string $raw): array => ['X-Timestamp' => (string) self::NOW, 'X-Signature' => Signature::dzpay($raw, self::NOW, 'whsec_cGFydG5lciBzaWduaW5nIHNlY3JldA==')];
        $received = [];
        $receiver = new WebhookReceiver('whsec_cGFydG5lciBzaWduaW5nIHNlY3JldA==', static function (WebhookEvent $event) use (&$received): void {
            $received[] = $event->id;
        });

        $ok = $receiver->handle($body, $sign($body), self::NOW);
        self::assertEquals(new PartnerResponse(200, ['success' => true]), $ok);
        self::assertSame('{"success":true}', $ok->json());
        self::assertSame(['e1'], $received);

        self::assertSame(200, $receiver->handle($test, $sign($test), self::NOW)->status);
        self::assertSame(['e1'], $received, 'a test event does not reach onEvent');

        self::assertSame([401, 'UNAUTHORIZED'], [($r = $receiver->handle($body, $sign($body . ' '), self::NOW))->status, $r->body['error']]);
        self::assertSame([400, 'BAD_REQUEST'], [($r = $receiver->handle('{}', $sign('{}'), self::NOW))->status, $r->body['error']]);

        $failing = new WebhookReceiver('whsec_cGFydG5lciBzaWduaW5nIHNlY3JldA==', static function (): void {
            throw new \RuntimeException('database down');
        });
        $previous = ini_set('error_log', '/dev/null');
        try {
            $answer = $failing->handle($body, $sign($body), self::NOW);
        } finally {
            ini_set('error_log', (string) $previous);
        }
        self::assertSame([503, 'SERVICE_UNAVAILABLE'], [$answer->status, $answer->body['error']], 'dzpay sends the event again');
    }
}
