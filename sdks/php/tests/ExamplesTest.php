<?php

declare(strict_types=1);

namespace Dzpay\Tests;

use Dzpay\Tests\Support\ScriptedDzpay;
use Dzpay\Tests\Support\TestServer;
use Dzpay\Webhook\Signature;
use PHPUnit\Framework\TestCase;

/**
 * The examples, served by `php -S` as a merchant would run them: the checkout button
 * registers a payment and redirects to its checkoutUrl; the webhook endpoint verifies
 * the raw body, applies an event once, and refuses what is not signed.
 */
final class ExamplesTest extends TestCase
{
    private const EXAMPLES = __DIR__ . '/../examples';

    /**
     * @param array<string, string> $headers
     * @return array{status: int, headers: array<string, string>, body: string}
     */
    private static function http(string $method, string $url, array $headers = [], ?string $body = null): array
    {
        $curl = curl_init($url);
        $answerHeaders = [];
        curl_setopt_array($curl, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_HTTPHEADER => array_map(static fn ($name, $value) => "$name: $value", array_keys($headers), $headers),
            CURLOPT_HEADERFUNCTION => static function ($curl, string $line) use (&$answerHeaders): int {
                if (str_contains($line, ':')) {
                    [$name, $value] = explode(':', $line, 2);
                    $answerHeaders[strtolower(trim($name))] = trim($value);
                }
                return strlen($line);
            },
        ] + ($body === null ? [] : [CURLOPT_POSTFIELDS => $body]));
        $answer = (string) curl_exec($curl);
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        curl_close($curl);
        return ['status' => $status, 'headers' => $answerHeaders, 'body' => $answer];
    }

    public function testTheCheckoutButtonRegistersAndRedirects(): void
    {
        $dzpay = new ScriptedDzpay();
        $shop = new TestServer(self::EXAMPLES . '/checkout.php', ['DZPAY_API_KEY' => 'pk_test_shop', 'DZPAY_BASE_URL' => $dzpay->url()]);
        try {
            $page = self::http('GET', $shop->url . '/');
            self::assertSame(200, $page['status']);
            self::assertStringContainsString('Payer par carte', $page['body']);
            self::assertSame(1, preg_match('/name="order" value="(ORDER-[0-9A-F]{12})"/', $page['body'], $match));
            $order = $match[1];

            $dzpay->queueData(201, ['id' => 'p1', 'reference' => $order, 'amount' => 150050, 'fees' => 15, 'total' => 151550, 'currency' => 'DZD',
                'language' => 'fr', 'status' => 'created', 'expiresAt' => '2026-11-21T10:15:00.000Z', 'checkoutUrl' => 'http://dzpay.test/checkout/tok']);
            $pressed = self::http('POST', $shop->url . '/', ['Content-Type' => 'application/x-www-form-urlencoded'], 'order=' . $order);
            self::assertSame(303, $pressed['status'], $pressed['body']);
            self::assertSame('http://dzpay.test/checkout/tok', $pressed['headers']['location']);
            [$registration] = $dzpay->requests();
            self::assertSame('pk_test_shop', $registration['headers']['x-api-key']);
            self::assertSame($order, $registration['headers']['idempotency-key']);
            $body = json_decode($registration['body'], true);
            self::assertSame(['amount' => 150050, 'currency' => 'DZD', 'reference' => $order], array_intersect_key($body, ['amount' => 1, 'currency' => 1, 'reference' => 1]));
            self::assertSame($shop->url . '/?return=success', $body['successUrl']);

            $dzpay->queueData(200, ['payments' => [['id' => 'p1', 'status' => 'success']], 'nextCursor' => null]);
            $back = self::http('GET', $shop->url . '/?return=success&reference=' . $order);
            self::assertStringContainsString('est confirmé', $back['body']);
            self::assertSame('/api/v1/payments?reference=' . $order . '&limit=1', $dzpay->requests()[1]['uri']);
        } finally {
            $shop->stop();
            $dzpay->stop();
        }
    }

    public function testTheWebhookEndpointVerifiesTheRawBodyAndAppliesEachEventOnce(): void
    {
        $data = sys_get_temp_dir() . '/dzpay-webhook-example-' . bin2hex(random_bytes(4));
        $secret = 'whsec_' . base64_encode(random_bytes(24));
        $endpoint = new TestServer(self::EXAMPLES . '/webhook.php', ['DZPAY_WEBHOOK_SECRET' => "$secret,whsec_dGhlIG9sZCBzaWduaW5nIHNlY3JldA==", 'DZPAY_EXAMPLE_DATA' => $data]);
        try {
            $body = '{"id":"evt-1","type":"payment.success","createdAt":"2026-11-21T10:00:00.000Z","data":{"paymentId":"p1","reference":"ORDER-1","channel":"CHECKOUT","amount":1500.5,"currency":"DZD","status":"success","orderId":"o1","paidAt":"2026-11-21T10:00:00.000Z","metadata":{"cart":7},"failureReason":null}}';
            $now = time();
            $headers = [
                'Content-Type' => 'application/json',
                'X-Timestamp' => (string) $now,
                'X-Signature' => Signature::dzpay($body, $now, $secret),
                'webhook-id' => 'evt-1',
                'webhook-timestamp' => (string) $now,
                'webhook-signature' => Signature::standard('evt-1', $now, $body, $secret),
            ];
            $first = self::http('POST', $endpoint->url . '/webhooks/platform', $headers, $body);
            self::assertSame([200, '{"success":true}'], [$first['status'], $first['body']]);
            self::assertSame(['ORDER-1' => ['status' => 'paid', 'paymentId' => 'p1', 'amountDzd' => 1500.5]], json_decode((string) file_get_contents("$data/orders.json"), true));

            $again = self::http('POST', $endpoint->url . '/webhooks/platform', $headers, $body);
            self::assertSame(200, $again['status'], 'a delivery seen before is answered success again');
            self::assertSame(['evt-1' => 'payment.success'], json_decode((string) file_get_contents("$data/events.json"), true));

            $forged = self::http('POST', $endpoint->url . '/webhooks/platform', $headers, str_replace('1500.5', '1.5', $body));
            self::assertSame(401, $forged['status']);
            self::assertSame('UNAUTHORIZED', json_decode($forged['body'], true)['error']);

            self::assertSame(405, self::http('GET', $endpoint->url . '/webhooks/platform')['status']);
        } finally {
            $endpoint->stop();
            foreach (glob("$data/*") ?: [] as $file) {
                unlink($file);
            }
            @rmdir($data);
        }
    }

    public function testTheProductLookupAnswersDzpay(): void
    {
        $partner = new TestServer(self::EXAMPLES . '/product-lookup.php', ['DZPAY_API_SECRET' => 'api-secret']);
        try {
            $headers = ['Authorization' => 'Bearer api-secret', 'X-Timestamp' => (string) time(), 'Accept' => 'application/json'];
            $book = self::http('GET', $partner->url . '/dzpay/BOOK-42', $headers);
            self::assertSame(200, $book['status']);
            self::assertSame(['reference' => 'BOOK-42', 'amount' => 1500.5, 'currency' => 'DZD', 'label' => 'Nedjma — Kateb Yacine'], json_decode($book['body'], true));
            self::assertSame(409, self::http('GET', $partner->url . '/dzpay/BOOK-7', $headers)['status']);
            self::assertSame(404, self::http('GET', $partner->url . '/dzpay/BOOK%2F1', $headers)['status']);
            self::assertSame(401, self::http('GET', $partner->url . '/dzpay/BOOK-42', ['Authorization' => 'Bearer nope'] + $headers)['status']);
        } finally {
            $partner->stop();
        }
    }
}
