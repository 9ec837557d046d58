<?php

declare(strict_types=1);

namespace Dzpay\Tests;

use Dzpay\DzpayClient;
use Dzpay\ErrorCode;
use Dzpay\Exception\ApiException;
use Dzpay\Exception\AuthenticationException;
use Dzpay\Exception\BadGatewayException;
use Dzpay\Exception\ConflictException;
use Dzpay\Exception\ConnectionException;
use Dzpay\Exception\DzpayException;
use Dzpay\Exception\InvalidRequestException;
use Dzpay\Exception\NotFoundException;
use Dzpay\Exception\RateLimitException;
use Dzpay\Exception\ServiceUnavailableException;
use Dzpay\Exception\UnexpectedResponseException;
use Dzpay\Http\HttpRequest;
use Dzpay\Http\HttpResponse;
use Dzpay\Http\StreamedResponse;
use Dzpay\Http\Transport;
use Dzpay\Tests\Support\ScriptedDzpay;
use PHPUnit\Framework\TestCase;

/**
 * The client's requests, retries and error mapping, against a `php -S` stand-in for
 * dzpay that records what it receives (so the real curl transport is exercised).
 */
final class ClientTest extends TestCase
{
    private static ScriptedDzpay $dzpay;
    /** @var list<float> */
    private array $sleeps = [];

    public static function setUpBeforeClass(): void
    {
        self::$dzpay = new ScriptedDzpay();
    }

    public static function tearDownAfterClass(): void
    {
        self::$dzpay->stop();
    }

    protected function setUp(): void
    {
        self::$dzpay->reset();
        $this->sleeps = [];
    }

    private function client(int $maxRetries = 2, float $maxRetryDelay = 10.0): DzpayClient
    {
        return new DzpayClient(
            apiKey: 'pk_test_abc123',
            baseUrl: self::$dzpay->url() . '/',
            maxRetries: $maxRetries,
            maxRetryDelay: $maxRetryDelay,
            sleep: function (float $seconds): void {
                $this->sleeps[] = $seconds;
            },
        );
    }

    /** @return array<string, mixed> */
    private static function registered(): array
    {
        return [
            'id' => '5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71', 'reference' => 'ORDER-1001', 'amount' => 250000,
            'fees' => 15, 'total' => 251500, 'currency' => 'DZD', 'language' => 'ar', 'status' => 'created',
            'expiresAt' => '2026-11-21T10:15:00.000Z', 'checkoutUrl' => 'http://localhost:8080/checkout/tok',
        ];
    }

    public function testRegisterSendsTheKeyTheIdempotencyKeyAndTheBodyAsJson(): void
    {
        self::$dzpay->queueData(201, self::registered(), ['Idempotent-Replayed' => 'true']);
        $client = $this->client();
        $payment = $client->registerPayment([
            'amount' => 250000,
            'reference' => 'ORDER-1001',
            'successUrl' => 'https://shop.example/ok?cart=7',
            'language' => 'ar',
            'metadata' => ['cart' => 7, 'note' => 'é/ع'],
        ], 'order-1001');

        self::assertSame('http://localhost:8080/checkout/tok', $payment['checkoutUrl']);
        self::assertSame(251500, $payment['total']);
        self::assertSame('true', $client->lastResponse()?->header('Idempotent-Replayed'));
        [$request] = self::$dzpay->requests();
        self::assertSame('POST', $request['method']);
        self::assertSame('/api/v1/payments', $request['uri']);
        self::assertSame('pk_test_abc123', $request['headers']['x-api-key']);
        self::assertSame('order-1001', $request['headers']['idempotency-key']);
        self::assertSame('application/json', $request['headers']['content-type']);
        self::assertStringStartsWith('dzpay-php/' . DzpayClient::VERSION, $request['headers']['user-agent']);
        self::assertSame(
            '{"amount":250000,"reference":"ORDER-1001","successUrl":"https://shop.example/ok?cart=7","language":"ar","metadata":{"cart":7,"note":"é/ع"},"currency":"DZD"}',
            $request['body'],
        );
    }

    public function testA503IsRetriedAfterRetryAfterWithTheSameIdempotencyKeyAndBody(): void
    {
        self::$dzpay->queueError(503, ErrorCode::SERVICE503_UNAVAILABLE, 'payments did not answer in time', ['reason' => 'payments'], ['Retry-After' => '2']);
        self::$dzpay->queueData(201, self::registered());
        $payment = $this->client()->registerPayment(['amount' => 250000, 'currency' => 'DZD', 'reference' => 'ORDER-1001']);

        self::assertSame('created', $payment['status']);
        self::assertSame([2.0], $this->sleeps);
        [$first, $second] = self::$dzpay->requests();
        self::assertMatchesRegularExpression('/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/', $first['headers']['idempotency-key'], 'a key is made when none is given');
        self::assertSame($first['headers']['idempotency-key'], $second['headers']['idempotency-key']);
        self::assertSame($first['body'], $second['body']);
    }

    public function testARefundIsRetriedWithTheCallersIdempotencyKeyAndAnObjectBody(): void
    {
        self::$dzpay->queue(429, ['statusCode' => 429, 'message' => 'Too many requests'], ['Retry-After' => '1']);
        self::$dzpay->queueData(202, ['id' => 'p1', 'status' => 'success', 'refundedAmount' => 0, 'pendingRefundAmount' => 250000,
            'refund' => ['id' => 'r1', 'amount' => 250000, 'status' => 'pending']]);
        $refund = $this->client()->refundPayment('p1', null, 'refund-p1-1');

        self::assertSame('pending', $refund['refund']['status']);
        self::assertSame([1.0], $this->sleeps);
        $requests = self::$dzpay->requests();
        self::assertCount(2, $requests);
        foreach ($requests as $request) {
            self::assertSame('/api/v1/payments/p1/refund', $request['uri']);
            self::assertSame('refund-p1-1', $request['headers']['idempotency-key']);
            self::assertSame('{}', $request['body'], 'the whole amount: an empty JSON object, not []');
        }
    }

    public function testRetriesStopAfterMaxRetriesAndThrowTheLastError(): void
    {
        for ($i = 0; $i < 3; $i++) {
            self::$dzpay->queueError(503, ErrorCode::SERVICE503_UNAVAILABLE, 'status did not answer', ['reason' => 'status']);
        }
        try {
            $this->client()->getReferenceStatus('BOOK-42');
            self::fail('no exception');
        } catch (ServiceUnavailableException $error) {
            self::assertSame(503, $error->httpStatus);
            self::assertSame(ErrorCode::SERVICE503_UNAVAILABLE, $error->errorCode);
            self::assertSame(['reason' => 'status'], $error->details);
            self::assertNull($error->retryAfter);
        }
        self::assertCount(3, self::$dzpay->requests());
        self::assertSame([0.5, 1.0], $this->sleeps, 'without Retry-After: 0.5 s, then 1 s');
    }

    public function testARetryAfterLongerThanMaxRetryDelayIsThrownAtOnce(): void
    {
        self::$dzpay->queue(429, ['statusCode' => 429, 'message' => 'Too many requests: at most 60 per minute. Retry in 1 minute.'], ['Retry-After' => '60']);
        try {
            $this->client()->getReferenceStatus('BOOK-42');
            self::fail('no exception');
        } catch (RateLimitException $error) {
            self::assertSame(429, $error->httpStatus);
            self::assertSame(60, $error->retryAfter);
            self::assertNull($error->errorCode, 'the rate-limit shape has no errorCode');
            self::assertSame('Too many requests: at most 60 per minute. Retry in 1 minute.', $error->apiMessage());
        }
        self::assertCount(1, self::$dzpay->requests());
        self::assertSame([], $this->sleeps);
    }

    public function testAReceiptEmailIsNotRetriedOn503ButIsOn429(): void
    {
        self::$dzpay->queueError(503, ErrorCode::SERVICE503_UNAVAILABLE, 'receipts did not answer in time');
        try {
            $this->client()->emailReceipt('p1', 'amina@example.dz');
            self::fail('no exception');
        } catch (ServiceUnavailableException) {
        }
        self::assertCount(1, self::$dzpay->requests(), 'a 503 may hide an email that left');

        self::$dzpay->reset();
        self::$dzpay->queueError(429, ErrorCode::RATE429_LIMIT_EXCEEDED, 'receipt limit reached', ['retryAfterSeconds' => 1, 'limit' => 20], ['Retry-After' => '1']);
        self::$dzpay->queue(200, ['statusCode' => 200, 'message' => 'Receipt email sent', 'data' => ['sent' => true, 'language' => 'fr']]);
        self::assertSame(['sent' => true, 'language' => 'fr'], $this->client()->emailReceipt('p1', 'amina@example.dz', 'fr'));
        $requests = self::$dzpay->requests();
        self::assertCount(2, $requests);
        self::assertSame('{"email":"amina@example.dz","language":"fr"}', $requests[1]['body']);
    }

    public function testAReceiptLimitBeyondTheWaitIsARateLimitExceptionWithItsDetails(): void
    {
        self::$dzpay->queueError(429, ErrorCode::RATE429_LIMIT_EXCEEDED, 'receipt limit reached', ['retryAfterSeconds' => 1800, 'limit' => 20], ['Retry-After' => '1800']);
        try {
            $this->client()->emailReceipt('p1', 'amina@example.dz');
            self::fail('no exception');
        } catch (RateLimitException $error) {
            self::assertSame(ErrorCode::RATE429_LIMIT_EXCEEDED, $error->errorCode);
            self::assertSame(1800, $error->retryAfter);
            self::assertSame(20, $error->details['limit']);
        }
    }

    public function testErrorsAreTypedAndCarryErrorCodeDetailsAndStatus(): void
    {
        self::$dzpay->queueError(409, ErrorCode::PAYMENT_INSTANCE409_DUPLICATE_REFERENCE, 'Reference already used', ['reference' => 'ORDER-1']);
        try {
            $this->client()->registerPayment(['amount' => 5000, 'reference' => 'ORDER-1']);
            self::fail('no exception');
        } catch (ConflictException $error) {
            self::assertInstanceOf(ApiException::class, $error);
            self::assertInstanceOf(DzpayException::class, $error);
            self::assertSame(409, $error->httpStatus);
            self::assertSame(409, $error->getCode());
            self::assertSame(ErrorCode::PAYMENT_INSTANCE409_DUPLICATE_REFERENCE, $error->errorCode);
            self::assertSame(['reference' => 'ORDER-1'], $error->details);
            self::assertSame('dzpay answered 409 PAYMENT_INSTANCE409_DUPLICATE_REFERENCE: Reference already used', $error->getMessage());
        }
        self::assertCount(1, self::$dzpay->requests(), 'a 409 is not retried');

        self::$dzpay->queueError(400, ErrorCode::VALIDATION400_BAD_REQUEST, 'Invalid body', ['failures' => [['field' => 'successUrl', 'message' => 'successUrl must be an absolute http(s) URL']]]);
        try {
            $this->client()->registerPayment(['amount' => 5000, 'reference' => 'ORDER-2', 'successUrl' => 'shop/ok']);
            self::fail('no exception');
        } catch (InvalidRequestException $error) {
            self::assertSame('successUrl', $error->details['failures'][0]['field']);
        }

        self::$dzpay->queueError(401, ErrorCode::AUTH401_UNAUTHORIZED_ACCESS, 'Unauthorized');
        $this->expectException(AuthenticationException::class);
        $this->client()->getPayment('p1');
    }

    public function testTheQrValidationListGivesItsMessages(): void
    {
        self::$dzpay->queue(400, ['statusCode' => 400, 'message' => ['amounts must contain at least 1 element', 'singleUse must be a boolean'], 'error' => 'Bad Request']);
        try {
            $this->client()->setQrConfig('QR-1', [], true);
            self::fail('no exception');
        } catch (InvalidRequestException $error) {
            self::assertNull($error->errorCode);
            self::assertSame(['amounts must contain at least 1 element', 'singleUse must be a boolean'], $error->validationMessages);
        }
    }

    public function testANonJsonErrorKeepsItsRawBody(): void
    {
        self::$dzpay->queue(502, '<html>Bad Gateway</html>', ['Content-Type' => 'text/html']);
        try {
            $this->client()->getPayment('p1');
            self::fail('no exception');
        } catch (BadGatewayException $error) {
            self::assertSame(502, $error->httpStatus);
            self::assertNull($error->errorCode);
            self::assertSame('<html>Bad Gateway</html>', $error->rawBody);
        }
    }

    public function testASuccessThatIsNotJsonIsAnUnexpectedResponse(): void
    {
        self::$dzpay->queue(200, 'hello', ['Content-Type' => 'text/plain']);
        $this->expectException(UnexpectedResponseException::class);
        $this->client()->getPayment('p1');
    }

    public function testPathParametersAreEncoded(): void
    {
        self::$dzpay->queueData(200, ['reference' => 'BOOK/42 #1', 'stage' => 'not_found', 'locked' => false, 'paid' => false,
            'lockReleaseTime' => null, 'paymentId' => null, 'channel' => 'AGENCY', 'currency' => 'DZD', 'amount' => null, 'payment' => null]);
        $status = $this->client()->getReferenceStatus('BOOK/42 #1');
        self::assertSame('not_found', $status['stage']);
        self::assertSame('GET', self::$dzpay->requests()[0]['method']);
        self::assertSame('/partner/payments/v1/BOOK%2F42%20%231/status', self::$dzpay->requests()[0]['uri']);
        self::assertArrayNotHasKey('content-type', self::$dzpay->requests()[0]['headers'], 'a GET has no body');
    }

    public function testQrConfigurationIsSetAndRemoved(): void
    {
        self::$dzpay->queue(200, ['statusCode' => 200, 'message' => 'QR configuration set successfully']);
        self::$dzpay->queue(204);
        $client = $this->client();
        $client->setQrConfig('QR-7', [500, 1500.5], true, new \DateTimeImmutable('2030-12-31T23:00:00+01:00'));
        $client->unsetQrConfig('QR-7');
        [$set, $unset] = self::$dzpay->requests();
        self::assertSame('/set-qr-config', $set['uri']);
        self::assertSame('{"token":"QR-7","amounts":[500,1500.5],"singleUse":true,"expiresAt":"2030-12-31T23:00:00.000+01:00"}', $set['body']);
        self::assertSame('/un-set-qr-config', $unset['uri']);
        self::assertSame('{"token":"QR-7"}', $unset['body']);
    }

    public function testCancelIsAPostWithoutABody(): void
    {
        self::$dzpay->queueData(200, ['id' => 'p1', 'status' => 'cancelled']);
        self::assertSame('cancelled', $this->client()->cancelPayment('p1')['status']);
        [$request] = self::$dzpay->requests();
        self::assertSame('POST', $request['method']);
        self::assertSame('/api/v1/payments/p1/cancel', $request['uri']);
        self::assertSame('', $request['body']);
        self::assertArrayNotHasKey('content-type', $request['headers']);
        self::assertArrayNotHasKey('idempotency-key', $request['headers']);
    }

    public function testAllPaymentsFollowsTheCursorsWithTheSameFilters(): void
    {
        self::$dzpay->queueData(200, ['payments' => [['id' => 'a'], ['id' => 'b']], 'nextCursor' => 'c1']);
        self::$dzpay->queueData(200, ['payments' => [['id' => 'c']], 'nextCursor' => 'c2/+=']);
        self::$dzpay->queueData(200, ['payments' => [['id' => 'd']], 'nextCursor' => null]);
        $ids = [];
        foreach ($this->client()->allPayments(['status' => 'success', 'limit' => 2, 'createdFrom' => '2026-11-01', 'reference' => null]) as $payment) {
            $ids[] = $payment['id'];
        }
        self::assertSame(['a', 'b', 'c', 'd'], $ids);
        self::assertSame(
            [
                '/api/v1/payments?status=success&limit=2&createdFrom=2026-11-01',
                '/api/v1/payments?status=success&limit=2&createdFrom=2026-11-01&cursor=c1',
                '/api/v1/payments?status=success&limit=2&createdFrom=2026-11-01&cursor=c2%2F%2B%3D',
            ],
            array_column(self::$dzpay->requests(), 'uri'),
        );
    }

    public function testIterationIsLazy(): void
    {
        self::$dzpay->queueData(200, ['links' => [['id' => 'l1']], 'nextCursor' => 'c1']);
        $links = $this->client()->allPaymentLinks(['limit' => 1]);
        self::assertCount(0, self::$dzpay->requests(), 'nothing is asked before the loop');
        foreach ($links as $link) {
            self::assertSame('l1', $link['id']);
            break;
        }
        self::assertCount(1, self::$dzpay->requests(), 'the second page is asked only when needed');
    }

    public function testTheCsvExportIsReadWhileItIsStillArriving(): void
    {
        $header = "id,created_at,reference,amount_dzd,metadata\r\n";
        $first = "p1,2026-11-21T10:00:00.000Z,ORDER-1,1500.50,\"{\"\"note\"\":\"\"a, b\"\"}\"\r\n";
        self::$dzpay->queue(
            200,
            null,
            ['Content-Type' => 'text/csv; charset=utf-8', 'Content-Disposition' => 'attachment; filename="payments-test-2026-11-21.csv"'],
            [$header . $first, "p2,2026-11-21T11:00:00.000Z,\"ORDER-2\nsecond line\",'=1+1,\r\n", "p3,2026-11-21T12:00:00.000Z,ORDER-3,20.00,\r\n"],
            'go',
        );
        $export = $this->client()->exportPayments(['status' => 'success', 'dialect' => 'standard']);
        self::assertSame('payments-test-2026-11-21.csv', $export->filename());
        self::assertSame('/api/v1/payments/export?status=success&dialect=standard', self::$dzpay->requests()[0]['uri']);

        $rows = [];
        foreach ($export->rows() as $row) {
            $rows[] = $row;
            if (count($rows) === 1) {
                // The server holds the rest back until this first row was read.
                self::$dzpay->release('go');
            }
        }
        self::assertCount(3, $rows, 'no TIMEOUT row: the first row was read before the rest was sent');
        self::assertSame(['id' => 'p1', 'created_at' => '2026-11-21T10:00:00.000Z', 'reference' => 'ORDER-1', 'amount_dzd' => '1500.50', 'metadata' => '{"note":"a, b"}'], $rows[0]);
        self::assertSame("ORDER-2\nsecond line", $rows[1]['reference']);
        self::assertSame("'=1+1", $rows[1]['amount_dzd']);
        self::assertSame('p3', $rows[2]['id']);
    }

    public function testTheSpreadsheetDialectIsReadByItsByteOrderMark(): void
    {
        self::$dzpay->queue(200, "\xEF\xBB\xBFid;amount_dzd;reference\r\np1;1500,50;\"A;B\"\r\n", ['Content-Type' => 'text/csv; charset=utf-8']);
        $rows = iterator_to_array($this->client()->exportPayments(['dialect' => 'spreadsheet'])->rows(), false);
        self::assertSame([['id' => 'p1', 'amount_dzd' => '1500,50', 'reference' => 'A;B']], $rows);
    }

    public function testAnExportSavedToAFileHoldsTheBytesAsSent(): void
    {
        $csv = "id,reference\r\n" . str_repeat("p,ORDER\r\n", 20000);
        self::$dzpay->queue(200, $csv, ['Content-Type' => 'text/csv; charset=utf-8']);
        $file = tempnam(sys_get_temp_dir(), 'dzpay');
        try {
            self::assertSame(strlen($csv), $this->client()->exportPayments()->saveTo($file));
            self::assertSame($csv, file_get_contents($file));
        } finally {
            unlink($file);
        }
    }

    public function testABadExportFilterThrowsBeforeAnyCsv(): void
    {
        self::$dzpay->queueError(400, ErrorCode::VALIDATION400_BAD_REQUEST, 'Invalid query', ['failures' => [['field' => 'status', 'message' => 'status must be one of …']]]);
        try {
            $this->client()->exportPayments(['status' => 'paid']);
            self::fail('no exception');
        } catch (InvalidRequestException $error) {
            self::assertSame('status', $error->details['failures'][0]['field']);
        }
    }

    public function testADownloadIsRetriedOn503(): void
    {
        self::$dzpay->queueError(503, ErrorCode::SERVICE503_UNAVAILABLE, 'busy', null, ['Retry-After' => '0']);
        self::$dzpay->queue(200, '<svg/>', ['Content-Type' => 'image/svg+xml', 'ETag' => '"abc"']);
        $image = $this->client()->qrCodeImage('QR 1', ['format' => 'svg']);
        self::assertSame('<svg/>', $image->contents());
        self::assertSame('"abc"', $image->etag());
        self::assertSame([0.0], $this->sleeps);
        self::assertSame('/api/v1/qr-codes/QR%201/image?format=svg', self::$dzpay->requests()[1]['uri']);
    }

    public function testANotFoundDownloadIsANotFoundException(): void
    {
        self::$dzpay->queueError(404, ErrorCode::QR_CODE404_NOT_FOUND, 'QR code not found', ['token' => 'nope']);
        try {
            $this->client()->qrCodeImage('nope');
            self::fail('no exception');
        } catch (NotFoundException $error) {
            self::assertSame(['token' => 'nope'], $error->details);
        }
    }

    public function testOtherOperationsUseTheirPathsAndBodies(): void
    {
        $client = $this->client();
        $calls = [
            ['getPayment', ['p1'], 'GET', '/api/v1/payments/p1', ''],
            ['listPaymentWebhooks', ['p1'], 'GET', '/api/v1/payments/p1/webhooks', ''],
            ['createPaymentLink', [['label' => 'Cours', 'amount' => 450000, 'metadata' => []]], 'POST', '/api/v1/payment-links', '{"label":"Cours","amount":450000,"metadata":{}}'],
            ['deactivatePaymentLink', ['l1'], 'POST', '/api/v1/payment-links/l1/deactivate', ''],
            ['getBalance', [['from' => '2026-11-01', 'to' => '2026-11-30']], 'GET', '/api/v1/balance?from=2026-11-01&to=2026-11-30', ''],
            ['listPayouts', [['limit' => 5]], 'GET', '/api/v1/payouts?limit=5', ''],
            ['setWebhookSettings', [['url' => null, 'events' => ['payment.success']]], 'PUT', '/api/v1/webhooks/settings', '{"url":null,"events":["payment.success"]}'],
            ['rotateSigningSecret', [12], 'POST', '/api/v1/webhooks/signing-secret/rotate', '{"graceHours":12}'],
            ['sendTestWebhook', [], 'POST', '/api/v1/webhooks/test', '{}'],
            ['replayWebhookDelivery', ['d1'], 'POST', '/api/v1/webhooks/deliveries/d1/replay', ''],
            ['listAuditEvents', [['action' => 'payment.refund']], 'GET', '/api/v1/audit-events?action=payment.refund', ''],
        ];
        foreach ($calls as [$method, $arguments, $verb, $uri, $body]) {
            self::$dzpay->reset();
            self::$dzpay->queueData(200, ['deliveries' => []]);
            $client->{$method}(...$arguments);
            [$request] = self::$dzpay->requests();
            self::assertSame([$verb, $uri, $body], [$request['method'], $request['uri'], $request['body']], $method);
            self::assertSame(DzpayClient::OPERATIONS[$method][0], $verb, $method);
        }
    }

    public function testALostConnectionIsRetriedForReadsThenThrown(): void
    {
        $client = new DzpayClient('pk_test_x', 'http://127.0.0.1:' . Support\TestServer::freePort(), sleep: function (float $s): void {
            $this->sleeps[] = $s;
        });
        try {
            $client->getPayment('p1');
            self::fail('no exception');
        } catch (ConnectionException $error) {
            self::assertInstanceOf(DzpayException::class, $error);
        }
        self::assertSame([0.5, 1.0], $this->sleeps);

        $this->sleeps = [];
        try {
            $client->emailReceipt('p1', 'a@example.dz');
        } catch (ConnectionException) {
        }
        self::assertSame([], $this->sleeps, 'not retried where a repeat could do it twice');
    }

    public function testRetryAfterMayBeAnHttpDate(): void
    {
        self::assertSame(30, ApiException::retryAfterSeconds('Sat, 21 Nov 2026 10:00:30 GMT', (new \DateTimeImmutable('2026-11-21T10:00:00Z'))->getTimestamp()));
        self::assertSame(0, ApiException::retryAfterSeconds('Sat, 21 Nov 2026 09:00:00 GMT', (new \DateTimeImmutable('2026-11-21T10:00:00Z'))->getTimestamp()));
        self::assertSame(7, ApiException::retryAfterSeconds(' 7 '));
        self::assertNull(ApiException::retryAfterSeconds('soon'));
        self::assertNull(ApiException::retryAfterSeconds(null));
    }

    public function testTheConstructorRefusesWhatCannotWork(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new DzpayClient('pk_test_x', 'pay.example.dz');
    }

    public function testTheStatusAndQrEndpointsMayLiveAtAnotherBaseUrl(): void
    {
        self::$dzpay->queue(204);
        $client = new DzpayClient('pk_test_x', 'https://gateway.invalid', partnerBaseUrl: self::$dzpay->url() . '/partner-api');
        $client->unsetQrConfig('QR-1');
        self::assertSame('/partner-api/un-set-qr-config', self::$dzpay->requests()[0]['uri']);
    }

    // ---------------------------------------------------------------- Idempotency-Key on errors

    public function testEveryErrorOfACallSentWithAnIdempotencyKeyCarriesIt(): void
    {
        self::$dzpay->queueError(409, ErrorCode::PAYMENT_INSTANCE409_NOT_REFUNDABLE, 'Payment cannot be refunded');
        try {
            $this->client()->refundPayment('p1', 5000, 'refund-ORDER-1-1');
            self::fail('no exception');
        } catch (ConflictException $error) {
            self::assertSame('refund-ORDER-1-1', $error->idempotencyKey, "the caller's key");
        }

        self::$dzpay->reset();
        self::$dzpay->queueError(400, ErrorCode::VALIDATION400_BAD_REQUEST, 'Invalid body');
        try {
            $this->client()->registerPayment(['amount' => 5000, 'reference' => 'ORDER-2']);
            self::fail('no exception');
        } catch (InvalidRequestException $error) {
            self::assertNotNull($error->idempotencyKey, 'the key the client made');
            self::assertSame(self::$dzpay->requests()[0]['headers']['idempotency-key'], $error->idempotencyKey);
        }

        // Retries ran out: the last error carries the key all the tries were sent with.
        self::$dzpay->reset();
        for ($i = 0; $i < 3; $i++) {
            self::$dzpay->queueError(503, ErrorCode::SERVICE503_UNAVAILABLE, 'payments did not answer in time');
        }
        try {
            $this->client()->refundPayment('p1', null, 'refund-ORDER-1-2');
            self::fail('no exception');
        } catch (ServiceUnavailableException $error) {
            self::assertSame('refund-ORDER-1-2', $error->idempotencyKey);
        }

        foreach (['not JSON' => 'hello', 'no data' => '{"statusCode":201,"message":"ok"}'] as $case => $body) {
            self::$dzpay->reset();
            self::$dzpay->queue(201, $body, ['Content-Type' => 'application/json']);
            try {
                $this->client()->registerPayment(['amount' => 5000, 'reference' => 'ORDER-3'], 'ORDER-3');
                self::fail("no exception: $case");
            } catch (UnexpectedResponseException $error) {
                self::assertSame('ORDER-3', $error->idempotencyKey, $case);
            }
        }

        self::$dzpay->reset();
        self::$dzpay->queueError(404, ErrorCode::PAYMENT_INSTANCE404_NOT_FOUND, 'Payment not found');
        try {
            $this->client()->getPayment('p1');
            self::fail('no exception');
        } catch (NotFoundException $error) {
            self::assertNull($error->idempotencyKey, 'a request sent without a key');
        }
    }

    public function testALostConnectionCarriesTheIdempotencyKey(): void
    {
        $client = new DzpayClient('pk_test_x', 'http://127.0.0.1:' . Support\TestServer::freePort(), sleep: function (float $s): void {
            $this->sleeps[] = $s;
        });
        try {
            $client->refundPayment('p1', null, 'refund-ORDER-1-1');
            self::fail('no exception');
        } catch (ConnectionException $error) {
            self::assertSame('refund-ORDER-1-1', $error->idempotencyKey);
            self::assertInstanceOf(ConnectionException::class, $error->getPrevious(), "the transport's own exception");
            self::assertSame($error->getPrevious()->getMessage(), $error->getMessage());
        }
        self::assertSame([0.5, 1.0], $this->sleeps, 'retried, then thrown');

        try {
            $client->registerPayment(['amount' => 5000, 'reference' => 'ORDER-2']);
            self::fail('no exception');
        } catch (ConnectionException $error) {
            self::assertMatchesRegularExpression('/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/', (string) $error->idempotencyKey, 'the key the client made');
        }

        try {
            $client->getPayment('p1');
            self::fail('no exception');
        } catch (ConnectionException $error) {
            self::assertNull($error->idempotencyKey);
        }
    }

    // ---------------------------------------------------------------- 409: the key's first request still runs

    public function testA409WhoseFirstRequestIsStillRunningIsRetriedAsA503(): void
    {
        // The server now says details.inProgress; older servers only the message.
        self::$dzpay->queueError(409, ErrorCode::IDEMPOTENCY409_KEY_REUSED, 'a request with this Idempotency-Key is still running; retry shortly', ['inProgress' => true], ['Retry-After' => '3']);
        self::$dzpay->queueError(409, ErrorCode::IDEMPOTENCY409_KEY_REUSED, 'a request with this Idempotency-Key is still running; retry shortly');
        self::$dzpay->queueData(201, self::registered(), ['Idempotent-Replayed' => 'true']);
        $payment = $this->client()->registerPayment(['amount' => 250000, 'reference' => 'ORDER-1001'], 'ORDER-1001');

        self::assertSame('created', $payment['status']);
        self::assertSame([3.0, 1.0], $this->sleeps, 'Retry-After, else the backoff');
        $requests = self::$dzpay->requests();
        self::assertCount(3, $requests);
        self::assertSame(['ORDER-1001', 'ORDER-1001', 'ORDER-1001'], array_map(static fn (array $r): string => $r['headers']['idempotency-key'], $requests));

        // Within maxRetries, and not past maxRetryDelay.
        self::$dzpay->reset();
        $this->sleeps = [];
        for ($i = 0; $i < 3; $i++) {
            self::$dzpay->queueError(409, ErrorCode::IDEMPOTENCY409_KEY_REUSED, 'still running', ['inProgress' => true]);
        }
        try {
            $this->client()->refundPayment('p1', null, 'refund-p1-1');
            self::fail('no exception');
        } catch (ConflictException $error) {
            self::assertSame(['inProgress' => true], $error->details);
            self::assertSame('refund-p1-1', $error->idempotencyKey);
        }
        self::assertCount(3, self::$dzpay->requests());
        self::assertSame([0.5, 1.0], $this->sleeps);

        self::$dzpay->reset();
        self::$dzpay->queueError(409, ErrorCode::IDEMPOTENCY409_KEY_REUSED, 'still running', ['inProgress' => true], ['Retry-After' => '60']);
        try {
            $this->client()->refundPayment('p1', null, 'refund-p1-1');
            self::fail('no exception');
        } catch (ConflictException $error) {
            self::assertSame(60, $error->retryAfter);
        }
        self::assertCount(1, self::$dzpay->requests(), 'a Retry-After beyond maxRetryDelay is thrown');
    }

    public function testAnyOther409IsNeverRetried(): void
    {
        $others = [
            'another body' => [ErrorCode::IDEMPOTENCY409_KEY_REUSED, 'this Idempotency-Key was used with another request', null],
            'inProgress false' => [ErrorCode::IDEMPOTENCY409_KEY_REUSED, 'this Idempotency-Key was used with another request', ['inProgress' => false]],
            'inProgress not a boolean' => [ErrorCode::IDEMPOTENCY409_KEY_REUSED, 'this Idempotency-Key was used with another request', ['inProgress' => 'true']],
            'the message elsewhere' => [ErrorCode::IDEMPOTENCY409_KEY_REUSED, 'note: a request with this Idempotency-Key is still running', null],
            'another code' => [ErrorCode::PAYMENT_INSTANCE409_DUPLICATE_REFERENCE, 'a request with this Idempotency-Key is still running', ['inProgress' => true]],
        ];
        foreach ($others as $case => [$code, $message, $details]) {
            self::$dzpay->reset();
            self::$dzpay->queueError(409, $code, $message, $details);
            self::$dzpay->queueData(201, self::registered());
            try {
                $this->client()->registerPayment(['amount' => 250000, 'reference' => 'ORDER-1001'], 'ORDER-1001');
                self::fail("no exception: $case");
            } catch (ConflictException $error) {
                self::assertSame($code, $error->errorCode, $case);
            }
            self::assertCount(1, self::$dzpay->requests(), $case);
        }
        self::assertSame([], $this->sleeps);
    }

    // ---------------------------------------------------------------- setQrConfig

    public function testASingleUseQrConfigurationIsNotSentAgainAfterA503(): void
    {
        self::$dzpay->queueError(503, ErrorCode::SERVICE503_UNAVAILABLE, 'qr-config did not answer in time');
        self::$dzpay->queue(200, ['statusCode' => 200, 'message' => 'QR configuration set successfully']);
        try {
            $this->client()->setQrConfig('QR-1', [500], true);
            self::fail('no exception');
        } catch (ServiceUnavailableException) {
        }
        self::assertCount(1, self::$dzpay->requests(), 'a repeat could arm it again after a payer used it');

        self::$dzpay->reset();
        self::$dzpay->queueError(503, ErrorCode::SERVICE503_UNAVAILABLE, 'qr-config did not answer in time');
        self::$dzpay->queue(200, ['statusCode' => 200, 'message' => 'QR configuration set successfully']);
        $this->client()->setQrConfig('QR-1', [500], false);
        self::assertCount(2, self::$dzpay->requests(), 'a reusable one is sent again');

        self::$dzpay->reset();
        self::$dzpay->queue(429, ['statusCode' => 429, 'message' => 'Too many requests'], ['Retry-After' => '0']);
        self::$dzpay->queue(200, ['statusCode' => 200, 'message' => 'QR configuration set successfully']);
        $this->client()->setQrConfig('QR-1', [500], true);
        self::assertCount(2, self::$dzpay->requests(), 'a 429 was not processed: always retried');
        self::assertSame([0.5, 0.0], $this->sleeps);
    }

    public function testASingleUseQrConfigurationIsNotSentAgainAfterALostConnection(): void
    {
        $client = new DzpayClient('pk_test_x', 'http://127.0.0.1:' . Support\TestServer::freePort(), sleep: function (float $s): void {
            $this->sleeps[] = $s;
        });
        try {
            $client->setQrConfig('QR-1', [500], true);
            self::fail('no exception');
        } catch (ConnectionException) {
        }
        self::assertSame([], $this->sleeps);
        try {
            $client->setQrConfig('QR-1', [500], false);
            self::fail('no exception');
        } catch (ConnectionException) {
        }
        self::assertSame([0.5, 1.0], $this->sleeps);
    }

    public function testQrAmountsAreCheckedBeforeAnythingIsSent(): void
    {
        foreach ([[0], [-5], [0.0], [1.005], [5000000.004], [INF], [NAN], ['1500'], [true], [null], [500, 1e20]] as $amounts) {
            try {
                $this->client()->setQrConfig('QR-1', $amounts, false);
                self::fail('accepted ' . var_export($amounts, true));
            } catch (\InvalidArgumentException $error) {
                self::assertStringStartsWith('dzpay: ', $error->getMessage());
            }
        }
        self::assertCount(0, self::$dzpay->requests());

        self::$dzpay->queue(200, ['statusCode' => 200, 'message' => 'QR configuration set successfully']);
        $this->client()->setQrConfig('QR-1', [0.1 + 0.2, 0.01, 1500, 1500.5, 1500.0], false);
        self::assertSame('{"token":"QR-1","amounts":[0.3,0.01,1500,1500.5,1500.0],"singleUse":false}', self::$dzpay->requests()[0]['body']);
    }

    // ---------------------------------------------------------------- lastResponse

    public function testLastResponseIsResetWhenACallStarts(): void
    {
        $transport = new class () implements Transport {
            /** @var list<HttpResponse|ConnectionException> */
            public array $answers = [];

            public function send(HttpRequest $request): HttpResponse
            {
                $answer = array_shift($this->answers);
                if ($answer instanceof ConnectionException) {
                    throw $answer;
                }
                return $answer;
            }

            public function stream(HttpRequest $request): StreamedResponse
            {
                throw new ConnectionException('dzpay: connection refused', 7);
            }
        };
        $client = new DzpayClient('pk_test_x', 'https://pay.example.dz', maxRetries: 0, transport: $transport);
        $transport->answers = [
            new HttpResponse(200, ['x-ratelimit-remaining' => '59'], '{"statusCode":200,"message":"ok","data":{"id":"p1"}}'),
            new ConnectionException('dzpay: connection reset', 56),
            new HttpResponse(200, ['x-ratelimit-remaining' => '58'], '{"statusCode":200,"message":"ok","data":{"id":"p1"}}'),
        ];
        $client->getPayment('p1');
        self::assertSame('59', $client->lastResponse()?->header('x-ratelimit-remaining'));
        try {
            $client->emailReceipt('p1', 'amina@example.dz');
            self::fail('no exception');
        } catch (ConnectionException) {
        }
        self::assertNull($client->lastResponse(), "no answer: not the previous call's");

        $client->getPayment('p1');
        self::assertSame('58', $client->lastResponse()?->header('x-ratelimit-remaining'));
        try {
            $client->qrCodeImage('QR-1');
            self::fail('no exception');
        } catch (ConnectionException) {
        }
        self::assertNull($client->lastResponse(), 'a download that got no answer too');
    }
}
