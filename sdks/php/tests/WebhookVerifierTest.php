<?php

declare(strict_types=1);

namespace Dzpay\Tests;

use Dzpay\Exception\WebhookVerificationException;
use Dzpay\Webhook\Headers;
use Dzpay\Webhook\Signature;
use Dzpay\Webhook\VerificationResult;
use Dzpay\Webhook\WebhookEvent;
use Dzpay\Webhook\WebhookReceiver;
use Dzpay\Webhook\WebhookVerifier;
use PHPUnit\Framework\TestCase;

/**
 * Webhook verification: docs/webhooks.md's worked example, both signature schemes, the
 * timestamp tolerance, rotation, and the shared vectors (sdks/signature-vectors.json)
 * that the Node, PHP and Python verifiers must all pass.
 */
final class WebhookVerifierTest extends TestCase
{
    // docs/webhooks.md, "Worked example": 384 bytes, one line, no trailing newline.
    private const BODY = '{"id":"0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10","type":"payment.success","createdAt":"2025-03-14T09:26:53.000Z","data":{"paymentId":"5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71","reference":"BOOK-42","channel":"AGENCY","amount":1500.5,"currency":"DZD","status":"success","orderId":"7f3c2a10-4e5b-4b8e-9d61-0c1a2b3c4d5e","paidAt":"2025-03-14T09:26:52.000Z","metadata":null,"failureReason":null}}';
    private const SECRET = 'partner-signing-secret';
    private const TIMESTAMP = 1741944413;
    private const X_SIGNATURE = '794c93b1adf7bf172f511c863e9712f4b2abfd9c9bd52939dd6e498d92d9100f';
    private const WEBHOOK_ID = '0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10';
    private const WEBHOOK_SIGNATURE = 'v1,Cox1psW33dgBuFg9aOY3ZQvHha/GJPskcrQ2+s2f1qI=';

    /** @return array<string, string> the headers dzpay sends with the worked example */
    private static function headers(): array
    {
        return [
            'Content-Type' => 'application/json',
            'X-Timestamp' => (string) self::TIMESTAMP,
            'X-Signature' => self::X_SIGNATURE,
            'X-Event-Id' => self::WEBHOOK_ID,
            'X-Event-Type' => 'payment.success',
            'webhook-id' => self::WEBHOOK_ID,
            'webhook-timestamp' => (string) self::TIMESTAMP,
            'webhook-signature' => self::WEBHOOK_SIGNATURE,
        ];
    }

    /** @param array<string, string> $without */
    private static function headersWithout(string ...$without): array
    {
        return array_diff_key(self::headers(), array_flip($without));
    }

    public function testTheWorkedExampleSignaturesAreComputedAsTheDocsSay(): void
    {
        self::assertSame(384, strlen(self::BODY));
        self::assertSame(self::X_SIGNATURE, Signature::dzpay(self::BODY, self::TIMESTAMP, self::SECRET));
        self::assertSame(self::WEBHOOK_SIGNATURE, Signature::standard(self::WEBHOOK_ID, self::TIMESTAMP, self::BODY, self::SECRET));
    }

    public function testTheWorkedExampleVerifiesAndGivesItsEvent(): void
    {
        $result = (new WebhookVerifier(self::SECRET))->verify(self::BODY, self::headers(), self::TIMESTAMP);
        self::assertTrue($result->ok, $result->message);
        $event = $result->event;
        self::assertInstanceOf(WebhookEvent::class, $event);
        self::assertSame(self::WEBHOOK_ID, $event->id);
        self::assertSame(WebhookEvent::PAYMENT_SUCCESS, $event->type);
        self::assertSame('5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71', $event->paymentId());
        self::assertSame('BOOK-42', $event->reference());
        self::assertSame(1500.5, $event->data['amount']);
        self::assertNull($event->data['metadata']);
        self::assertFalse($event->isTest());
        self::assertNull($event->paymentLink());
    }

    public function testEitherSchemeAloneIsEnough(): void
    {
        $verifier = new WebhookVerifier(self::SECRET);
        self::assertTrue($verifier->verify(self::BODY, self::headersWithout('webhook-id', 'webhook-timestamp', 'webhook-signature'), self::TIMESTAMP)->ok);
        self::assertTrue($verifier->verify(self::BODY, self::headersWithout('X-Signature', 'X-Timestamp'), self::TIMESTAMP)->ok);
        // A broken X-Signature is rescued by a valid webhook-signature, and the reverse.
        self::assertTrue($verifier->verify(self::BODY, ['X-Signature' => str_repeat('0', 64)] + self::headers(), self::TIMESTAMP)->ok);
        self::assertTrue($verifier->verify(self::BODY, ['webhook-signature' => 'v1,' . base64_encode(str_repeat("\0", 32))] + self::headers(), self::TIMESTAMP)->ok);
    }

    public function testTheTimestampMustBeWithinTheToleranceEitherWay(): void
    {
        $verifier = new WebhookVerifier(self::SECRET);
        self::assertTrue($verifier->verify(self::BODY, self::headers(), self::TIMESTAMP + 300)->ok);
        self::assertTrue($verifier->verify(self::BODY, self::headers(), self::TIMESTAMP - 300)->ok);
        $late = $verifier->verify(self::BODY, self::headers(), self::TIMESTAMP + 301);
        self::assertFalse($late->ok);
        self::assertSame(VerificationResult::STALE_TIMESTAMP, $late->reason);
        self::assertSame(401, $late->refusalStatus());
        self::assertSame(VerificationResult::STALE_TIMESTAMP, $verifier->verify(self::BODY, self::headers(), self::TIMESTAMP - 301)->reason);
        self::assertTrue((new WebhookVerifier(self::SECRET, 3600))->verify(self::BODY, self::headers(), self::TIMESTAMP + 3600)->ok);
    }

    public function testTheSignatureCoversTheRawBytes(): void
    {
        $verifier = new WebhookVerifier(self::SECRET);
        $tampered = str_replace('1500.5', '1.5', self::BODY);
        self::assertSame(VerificationResult::BAD_SIGNATURE, $verifier->verify($tampered, self::headers(), self::TIMESTAMP)->reason);
        // Decoding and encoding again changes the bytes: the most common integration bug.
        $reencoded = json_encode(json_decode(self::BODY, true), JSON_PRETTY_PRINT);
        self::assertSame(VerificationResult::BAD_SIGNATURE, $verifier->verify((string) $reencoded, self::headers(), self::TIMESTAMP)->reason);
        self::assertSame(VerificationResult::BAD_SIGNATURE, $verifier->verify(self::BODY . "\n", self::headers(), self::TIMESTAMP)->reason);
    }

    public function testAnotherSecretDoesNotVerifyButAnyOfSeveralDoes(): void
    {
        self::assertSame(VerificationResult::BAD_SIGNATURE, (new WebhookVerifier('another-secret'))->verify(self::BODY, self::headers(), self::TIMESTAMP)->reason);
        self::assertTrue((new WebhookVerifier(['another-secret', self::SECRET]))->verify(self::BODY, self::headers(), self::TIMESTAMP)->ok);
    }

    public function testRotationEntriesAndOtherVersions(): void
    {
        $verifier = new WebhookVerifier(self::SECRET);
        $headers = self::headersWithout('X-Signature', 'X-Timestamp');
        $other = Signature::standard(self::WEBHOOK_ID, self::TIMESTAMP, self::BODY, 'whsec_' . base64_encode('the new secret'));
        self::assertTrue($verifier->verify(self::BODY, ['webhook-signature' => $other . ' ' . self::WEBHOOK_SIGNATURE] + $headers, self::TIMESTAMP)->ok);
        self::assertTrue($verifier->verify(self::BODY, ['webhook-signature' => 'v2,abc ' . self::WEBHOOK_SIGNATURE] + $headers, self::TIMESTAMP)->ok);
        self::assertSame(VerificationResult::BAD_SIGNATURE, $verifier->verify(self::BODY, ['webhook-signature' => 'v2,' . substr(self::WEBHOOK_SIGNATURE, 3)] + $headers, self::TIMESTAMP)->reason);
        self::assertTrue($verifier->verify(self::BODY, ['webhook-signature' => self::WEBHOOK_SIGNATURE . ' '] + $headers, self::TIMESTAMP)->ok, 'an empty entry is skipped');
    }

    public function testAWhsecSecretKeysTheStandardSchemeWithItsDecodedBytes(): void
    {
        // Values computed by @dzpay/partner-sdk (signWebhook, standardWebhookSignature).
        $secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
        $body = '{"id":"9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f","type":"webhook.test","createdAt":"2025-03-14T09:26:53.000Z","data":{"message":"A test event sent from the dzpay API; nothing happened to any payment."}}';
        $id = '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
        self::assertSame('4c3e31cab3b7dab20487816308085f2579c4eb62cdd6b0910b222bc955683a7d', Signature::dzpay($body, self::TIMESTAMP, $secret));
        self::assertSame('v1,fkM/maXUkbFA7j4QCD92ixKoGyXysO1PSP1IFIQXvGw=', Signature::standard($id, self::TIMESTAMP, $body, $secret));

        $result = (new WebhookVerifier($secret))->verify($body, [
            'webhook-id' => $id,
            'webhook-timestamp' => (string) self::TIMESTAMP,
            'webhook-signature' => 'v1,fkM/maXUkbFA7j4QCD92ixKoGyXysO1PSP1IFIQXvGw=',
        ], self::TIMESTAMP);
        self::assertTrue($result->ok, $result->message);
        self::assertTrue($result->event?->isTest());
        self::assertSame('A test event sent from the dzpay API; nothing happened to any payment.', $result->event?->data['message']);
    }

    public function testMissingDuplicatedOrMalformedHeaders(): void
    {
        $verifier = new WebhookVerifier(self::SECRET);
        self::assertSame(VerificationResult::MISSING_HEADERS, $verifier->verify(self::BODY, [], self::TIMESTAMP)->reason);
        self::assertSame(VerificationResult::MISSING_HEADERS, $verifier->verify(self::BODY, self::headersWithout('X-Timestamp', 'webhook-id'), self::TIMESTAMP)->reason);
        $twice = ['X-Signature' => [self::X_SIGNATURE, self::X_SIGNATURE]] + self::headersWithout('webhook-signature');
        self::assertSame(VerificationResult::MISSING_HEADERS, $verifier->verify(self::BODY, $twice, self::TIMESTAMP)->reason, 'a header sent twice counts as absent');
        $twoCasings = ['x-timestamp' => (string) self::TIMESTAMP] + self::headersWithout('webhook-signature');
        self::assertSame(VerificationResult::MISSING_HEADERS, $verifier->verify(self::BODY, $twoCasings, self::TIMESTAMP)->reason);
        $malformed = ['X-Timestamp' => self::TIMESTAMP . "\n"] + self::headersWithout('webhook-signature');
        self::assertSame(VerificationResult::MISSING_HEADERS, $verifier->verify(self::BODY, $malformed, self::TIMESTAMP)->reason);
        $notHex = ['X-Signature' => strtoupper(self::X_SIGNATURE) . 'z'] + self::headersWithout('webhook-signature');
        self::assertSame(VerificationResult::BAD_SIGNATURE, $verifier->verify(self::BODY, $notHex, self::TIMESTAMP)->reason);
        $upper = ['X-Signature' => strtoupper(self::X_SIGNATURE)] + self::headersWithout('webhook-signature');
        self::assertTrue($verifier->verify(self::BODY, $upper, self::TIMESTAMP)->ok, 'hex in upper case is the same digest');
    }

    public function testTheFirstSchemesReasonStandsUnlessTheSecondPasses(): void
    {
        $verifier = new WebhookVerifier(self::SECRET);
        $headers = ['webhook-signature' => 'v1,' . base64_encode(str_repeat("\1", 32))] + self::headers();
        self::assertSame(VerificationResult::STALE_TIMESTAMP, $verifier->verify(self::BODY, $headers, self::TIMESTAMP + 1000)->reason);
        $headers = ['X-Signature' => str_repeat('a', 64), 'webhook-timestamp' => (string) (self::TIMESTAMP - 1000)] + self::headers();
        self::assertSame(VerificationResult::BAD_SIGNATURE, $verifier->verify(self::BODY, $headers, self::TIMESTAMP)->reason);
    }

    public function testHeadersAsPhpGivesThem(): void
    {
        $verifier = new WebhookVerifier(self::SECRET);
        $server = ['REQUEST_METHOD' => 'POST', 'CONTENT_TYPE' => 'application/json'];
        foreach (self::headers() as $name => $value) {
            $server['HTTP_' . strtoupper(str_replace('-', '_', $name))] = $value;
        }
        self::assertTrue($verifier->verify(self::BODY, Headers::fromGlobals($server), self::TIMESTAMP)->ok, 'Headers::fromGlobals');
        self::assertTrue($verifier->verify(self::BODY, $server, self::TIMESTAMP)->ok, '$_SERVER itself');
        $psr7 = array_map(static fn (string $value): array => [$value], self::headers());
        self::assertTrue($verifier->verify(self::BODY, $psr7, self::TIMESTAMP)->ok, 'PSR-7 getHeaders()');
        self::assertSame('application/json', Headers::fromGlobals($server)['content-type']);
    }

    public function testASignedBodyThatIsNoEventIsMalformed(): void
    {
        $verifier = new WebhookVerifier(self::SECRET);
        foreach ([
            'not json' => 'hello',
            'an array' => '[1,2]',
            'unknown type' => '{"id":"e1","type":"payment.created","createdAt":"2025-03-14T09:26:53.000Z","data":{}}',
            'no zone' => str_replace('09:26:53.000Z"', '09:26:53.000"', self::BODY),
            'metadata a list' => str_replace('"metadata":null', '"metadata":[1]', self::BODY),
            'orderId missing' => str_replace('"orderId":"7f3c2a10-4e5b-4b8e-9d61-0c1a2b3c4d5e",', '', self::BODY),
            'amount a string' => str_replace('"amount":1500.5', '"amount":"1500.5"', self::BODY),
            'a test without message' => '{"id":"t1","type":"webhook.test","createdAt":"2025-03-14T09:26:53Z","data":{}}',
        ] as $case => $body) {
            $result = $verifier->verify($body, self::signed($body), self::TIMESTAMP);
            self::assertSame(VerificationResult::MALFORMED_BODY, $result->reason, $case);
            self::assertSame(400, $result->refusalStatus(), $case);
        }
    }

    public function testUnknownFieldsAreKeptAndOptionalOnesAccepted(): void
    {
        $body = str_replace('"failureReason":null}', '"failureReason":null,"refundedAmount":10,"later":{"x":1}},"extra":true', self::BODY);
        $body = str_replace('"type":"payment.success"', '"type":"payment.refunded"', $body);
        $body = str_replace('"metadata":null', '"metadata":{}', $body);
        $body = str_replace('"reference":"BOOK-42"', '"reference":"link-1b4e28ba-2fa1-41d2-883f-0016d3cca427-3"', $body);
        $result = (new WebhookVerifier(self::SECRET))->verify($body, self::signed($body), self::TIMESTAMP);
        self::assertTrue($result->ok, $result->message);
        self::assertSame(10, $result->event?->data['refundedAmount']);
        self::assertSame(['x' => 1], $result->event?->data['later']);
        self::assertTrue($result->event?->raw['extra']);
        self::assertSame(['paymentLinkId' => '1b4e28ba-2fa1-41d2-883f-0016d3cca427', 'number' => 3], $result->event?->paymentLink());
    }

    public function testConstructEventThrowsWithTheReason(): void
    {
        try {
            (new WebhookVerifier(self::SECRET))->constructEvent(self::BODY, self::headers(), self::TIMESTAMP + 301);
            self::fail('no exception');
        } catch (WebhookVerificationException $error) {
            self::assertSame('stale_timestamp', $error->reason);
        }
        self::assertSame(self::WEBHOOK_ID, (new WebhookVerifier(self::SECRET))->constructEvent(self::BODY, self::headers(), self::TIMESTAMP)->id);
    }

    public function testAnEmptySecretIsASetupError(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new WebhookVerifier(['ok', '']);
    }

    public function testAWhsecSecretThatDecodesToFewerThan16BytesIsRefused(): void
    {
        $short = ['whsec_', 'whsec_=', 'whsec_A', 'whsec_====', 'whsec_!!!!', 'whsec_c2VjcmV0', 'whsec_' . base64_encode(str_repeat('k', 15))];
        foreach ($short as $secret) {
            foreach ([
                'verifier' => static fn () => new WebhookVerifier($secret),
                'verifier, rotating' => static fn () => new WebhookVerifier([self::SECRET, $secret]),
                'receiver' => static fn () => new WebhookReceiver($secret, static function (): void {
                }),
            ] as $where => $construct) {
                try {
                    $construct();
                    self::fail("$where accepted '$secret'");
                } catch (\InvalidArgumentException $error) {
                    self::assertStringContainsString('at least 16 bytes', $error->getMessage(), $where);
                    $tail = substr($secret, 6);
                    if ($tail !== '') {
                        self::assertStringNotContainsString($tail, $error->getMessage(), "$where echoes the secret");
                    }
                }
            }
        }
        // 16 bytes and more, and any secret without the prefix (older plain ones), still do.
        foreach (['whsec_' . base64_encode(str_repeat('k', 16)), 'whsec_' . rtrim(strtr(base64_encode(random_bytes(32)), '+/', '-_'), '='), 'x', 'whsec'] as $secret) {
            new WebhookVerifier($secret);
            new WebhookReceiver($secret, static function (): void {
            });
        }
        self::addToAssertionCount(1);
    }

    /**
     * The shared vectors of sdks/signature-vectors.json: the Node, PHP and Python
     * verifiers must agree on every one.
     */
    public function testTheSharedSignatureVectors(): void
    {
        $file = dirname(__DIR__, 2) . '/signature-vectors.json';
        if (!is_file($file)) {
            self::markTestSkipped("no $file (it lives next to sdks/php in the dzpay repository)");
        }
        // The file's reasons, as this SDK (like the Node one) reports them.
        $reasons = [
            'bad-signature' => VerificationResult::BAD_SIGNATURE,
            'stale' => VerificationResult::STALE_TIMESTAMP,
            'future' => VerificationResult::STALE_TIMESTAMP,
            'missing-header' => VerificationResult::MISSING_HEADERS,
            'duplicate-header' => VerificationResult::MISSING_HEADERS,
            'malformed-header' => VerificationResult::MISSING_HEADERS,
            'malformed-body' => VerificationResult::MALFORMED_BODY,
        ];
        $vectors = json_decode((string) file_get_contents($file), true, 512, JSON_THROW_ON_ERROR)['vectors'];
        self::assertGreaterThan(50, count($vectors));
        $names = [];
        foreach ($vectors as $vector) {
            $name = $vector['name'];
            $names[$name] = true;
            $verifier = new WebhookVerifier($vector['secret'], $vector['toleranceSeconds']);
            // The headers as PSR-7 gives them: a list is a header sent on several lines.
            $result = $verifier->verify($vector['rawBody'], $vector['headers'], $vector['now']);
            self::assertSame($vector['expect']['valid'], $result->ok, "$name: {$result->message}");
            if (!$vector['expect']['valid']) {
                self::assertArrayHasKey($vector['expect']['reason'], $reasons, "$name: a reason this test does not know");
                self::assertSame($reasons[$vector['expect']['reason']], $result->reason, $name);
            }
        }
        self::assertCount(count($vectors), $names, 'vector names are unique');
    }

    /** @return array<string, string> both schemes' headers for a body, signed with SECRET at TIMESTAMP */
    private static function signed(string $body): array
    {
        return [
            'X-Timestamp' => (string) self::TIMESTAMP,
            'X-Signature' => Signature::dzpay($body, self::TIMESTAMP, self::SECRET),
            'webhook-id' => 'e1',
            'webhook-timestamp' => (string) self::TIMESTAMP,
            'webhook-signature' => Signature::standard('e1', self::TIMESTAMP, $body, self::SECRET),
        ];
    }
}
