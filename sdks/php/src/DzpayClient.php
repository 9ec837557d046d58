<?php

declare(strict_types=1);

namespace Dzpay;

use Dzpay\Exception\ApiException;
use Dzpay\Exception\ConnectionException;
use Dzpay\Exception\UnexpectedResponseException;
use Dzpay\Http\CurlTransport;
use Dzpay\Http\HttpRequest;
use Dzpay\Http\HttpResponse;
use Dzpay\Http\StreamedResponse;
use Dzpay\Http\Transport;

/**
 * dzpay's merchant API: one method per operation of the OpenAPI document the gateway
 * serves at /docs (the method is named after its operationId), plus all*() iterators
 * that follow the lists' cursors. Amounts of payments, refunds and payment links are
 * integer centimes (see Money); QR amounts and status amounts are dinars.
 *
 * ```php
 * $dzpay = new DzpayClient(apiKey: getenv('DZPAY_API_KEY'), baseUrl: 'https://pay.example.dz');
 * $payment = $dzpay->registerPayment([
 *     'amount' => 250000, 'currency' => 'DZD', 'reference' => 'ORDER-1042',
 *     'successUrl' => 'https://shop.example/merci', 'failureUrl' => 'https://shop.example/panier',
 * ]);
 * header('Location: ' . $payment['checkoutUrl'], true, 303);
 * ```
 *
 * Every answer other than a success throws an ApiException subclass carrying the HTTP
 * status, the errorCode and the details. 429 and 503 are retried (up to $maxRetries
 * times) after the Retry-After the answer asks for, when it is at most $maxRetryDelay
 * seconds; 503 and lost connections only where repeating cannot do a thing twice, and
 * a registration or refund is always sent with an Idempotency-Key (yours, or one made
 * here) that every retry repeats. A 409 IDEMPOTENCY409_KEY_REUSED saying the key's first
 * request is still running is retried as a 503 is; any other 409 is thrown at once.
 * Every exception of a call sent with an Idempotency-Key carries it ($idempotencyKey of
 * ApiException, ConnectionException and UnexpectedResponseException): to learn how a
 * registration or refund ended, call again with that key, never a new one.
 *
 * @phpstan-type RegisteredPayment array{id: string, reference: string, amount: int, fees: int, total: int, currency: string, language: string, status: string, expiresAt: string, checkoutUrl: string}
 * @phpstan-type Payment array{id: string, reference: string, amount: int, fees: int, total: int, currency: string, language: string, status: string, expiresAt: string, successUrl: ?string, failureUrl: ?string, metadata: ?array<string, mixed>, orderId: ?string, approvalCode: ?string, maskedPan: ?string, failureReason: ?string, refundedAmount: int, pendingRefundAmount: int, paidAt: ?string, createdAt: string, updatedAt: string, paymentLinkId?: string, channel?: string}
 * @phpstan-type RefundedPayment array{id: string, status: string, refundedAmount: int, pendingRefundAmount: int, refund: array{id: string, amount: int, status: string}}
 * @phpstan-type PaymentsPage array{payments: list<Payment>, nextCursor: ?string}
 * @phpstan-type StatusRecord array{reference: string, stage: string, locked: bool, paid: bool, lockReleaseTime: ?string, paymentId: ?string, channel: string, currency: string, amount: int|float|null, payment: ?array{paymentId: string, status: string, amount: int|float, currency: string, paidAt: ?string, orderId: ?string, webhookDelivery: ?string, createdAt: string, updatedAt: string}}
 * @phpstan-type ReceiptResult array{sent: bool, language: string}
 * @phpstan-type PaymentLink array{id: string, url: string, label: string, amount: ?int, minAmount: ?int, maxAmount: ?int, currency: string, singleUse: bool, expiresAt: ?string, language: string, metadata: ?array<string, mixed>, state: string, paidCount: int, paidAmount: int, deactivatedAt: ?string, createdAt: string, updatedAt: string}
 */
final class DzpayClient
{
    public const VERSION = '0.1.0';

    /**
     * Every operation of the merchant API this client covers, by the OpenAPI document's
     * operationId (= the method's name): HTTP method, path, and whether a 503 or a lost
     * connection may be retried (a 429 always may: the request was not processed).
     * setQrConfig is retried only when its singleUse is false: a repeat could arm a
     * single-use configuration again after a payer used it.
     * `partner` marks the spec's partner API ({base_url}), the rest is the payments API
     * ({gateway_base_url}); dzpay serves both at one address.
     */
    public const OPERATIONS = [
        // QR configuration ({base_url})
        'setQrConfig' => ['POST', '/set-qr-config', 'retry' => true, 'partner' => true],
        'unsetQrConfig' => ['POST', '/un-set-qr-config', 'retry' => true, 'partner' => true],
        // Status ({base_url})
        'getReferenceStatus' => ['GET', '/partner/payments/v1/{reference}/status', 'retry' => true, 'partner' => true],
        // Payments
        'registerPayment' => ['POST', '/api/v1/payments', 'retry' => true, 'partner' => false],
        'getPayment' => ['GET', '/api/v1/payments/{id}', 'retry' => true, 'partner' => false],
        'refundPayment' => ['POST', '/api/v1/payments/{id}/refund', 'retry' => true, 'partner' => false],
        'cancelPayment' => ['POST', '/api/v1/payments/{id}/cancel', 'retry' => true, 'partner' => false],
        'emailReceipt' => ['POST', '/api/v1/payments/{id}/receipt/email', 'retry' => false, 'partner' => false],
        'listPayments' => ['GET', '/api/v1/payments', 'retry' => true, 'partner' => false],
        'exportPayments' => ['GET', '/api/v1/payments/export', 'retry' => true, 'partner' => false],
        // QR codes
        'listQrCodes' => ['GET', '/api/v1/qr-codes', 'retry' => true, 'partner' => false],
        'qrCodeImage' => ['GET', '/api/v1/qr-codes/{token}/image', 'retry' => true, 'partner' => false],
        // Reports
        'dailyReport' => ['GET', '/api/v1/reports/daily', 'retry' => true, 'partner' => false],
        'exportDailyReport' => ['GET', '/api/v1/reports/daily/export', 'retry' => true, 'partner' => false],
        // Webhooks and events
        'getWebhookSettings' => ['GET', '/api/v1/webhooks/settings', 'retry' => true, 'partner' => false],
        'setWebhookSettings' => ['PUT', '/api/v1/webhooks/settings', 'retry' => false, 'partner' => false],
        'rotateSigningSecret' => ['POST', '/api/v1/webhooks/signing-secret/rotate', 'retry' => false, 'partner' => false],
        'sendTestWebhook' => ['POST', '/api/v1/webhooks/test', 'retry' => false, 'partner' => false],
        'listEvents' => ['GET', '/api/v1/events', 'retry' => true, 'partner' => false],
        'replayEvent' => ['POST', '/api/v1/events/{id}/replay', 'retry' => false, 'partner' => false],
        'listPaymentWebhooks' => ['GET', '/api/v1/payments/{id}/webhooks', 'retry' => true, 'partner' => false],
        'listWebhookDeliveries' => ['GET', '/api/v1/webhooks/deliveries', 'retry' => true, 'partner' => false],
        'replayWebhookDelivery' => ['POST', '/api/v1/webhooks/deliveries/{id}/replay', 'retry' => false, 'partner' => false],
        // Payment links
        'createPaymentLink' => ['POST', '/api/v1/payment-links', 'retry' => false, 'partner' => false],
        'listPaymentLinks' => ['GET', '/api/v1/payment-links', 'retry' => true, 'partner' => false],
        'getPaymentLink' => ['GET', '/api/v1/payment-links/{id}', 'retry' => true, 'partner' => false],
        'deactivatePaymentLink' => ['POST', '/api/v1/payment-links/{id}/deactivate', 'retry' => true, 'partner' => false],
        'paymentLinkImage' => ['GET', '/api/v1/payment-links/{id}/image', 'retry' => true, 'partner' => false],
        // Balance
        'getBalance' => ['GET', '/api/v1/balance', 'retry' => true, 'partner' => false],
        'listPayouts' => ['GET', '/api/v1/payouts', 'retry' => true, 'partner' => false],
        'downloadStatement' => ['GET', '/api/v1/statements/{month}', 'retry' => true, 'partner' => false],
        // Audit
        'listAuditEvents' => ['GET', '/api/v1/audit-events', 'retry' => true, 'partner' => false],
    ];

    private readonly string $baseUrl;
    private readonly string $partnerBaseUrl;
    private readonly Transport $transport;
    /** @var \Closure(float): void */
    private readonly \Closure $sleep;
    private ?HttpResponse $lastResponse = null;

    /**
     * @param string         $apiKey         a `pk_test_…` key (sandbox) or a `pk_live_…` key
     * @param string         $baseUrl        dzpay's address, e.g. `https://pay.example.dz`
     *                                       (`http://localhost:8080` for `pnpm start`)
     * @param string|null    $partnerBaseUrl the spec's {base_url} of the QR configuration and
     *                                       status endpoints, when it differs from $baseUrl
     * @param int            $maxRetries     retries of a 429 or 503 (0: none)
     * @param float          $maxRetryDelay  longest wait, in seconds, before a retry; a longer
     *                                       Retry-After is thrown to you instead
     * @param Transport|null $transport      CurlTransport by default
     * @param callable|null  $sleep          fn(float $seconds): void, for tests
     */
    public function __construct(
        private readonly string $apiKey,
        string $baseUrl,
        ?string $partnerBaseUrl = null,
        private readonly int $maxRetries = 2,
        private readonly float $maxRetryDelay = 10.0,
        ?Transport $transport = null,
        ?callable $sleep = null,
    ) {
        if (trim($apiKey) === '') {
            throw new \InvalidArgumentException('dzpay: the API key is empty (set DZPAY_API_KEY?)');
        }
        $this->baseUrl = self::checkedBaseUrl($baseUrl);
        $this->partnerBaseUrl = $partnerBaseUrl === null ? $this->baseUrl : self::checkedBaseUrl($partnerBaseUrl);
        if ($maxRetries < 0) {
            throw new \InvalidArgumentException('dzpay: maxRetries must be 0 or more');
        }
        $this->transport = $transport ?? new CurlTransport();
        $this->sleep = $sleep !== null
            ? \Closure::fromCallable($sleep)
            : static function (float $seconds): void {
                usleep((int) round($seconds * 1_000_000));
            };
    }

    /**
     * The last answer dzpay gave to the last call (headers such as `idempotent-replayed`,
     * `x-ratelimit-remaining`); null while a call runs and after one that got no answer.
     */
    public function lastResponse(): ?HttpResponse
    {
        return $this->lastResponse;
    }

    /** A fresh random Idempotency-Key (a UUID v4). */
    public static function newIdempotencyKey(): string
    {
        $bytes = random_bytes(16);
        $bytes[6] = chr((ord($bytes[6]) & 0x0f) | 0x40);
        $bytes[8] = chr((ord($bytes[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($bytes), 4));
    }

    // ---------------------------------------------------------------- payments

    /**
     * POST /api/v1/payments: registers a payment and returns its one-time checkoutUrl
     * (redirect the payer to it at once; it is shown only in this answer).
     *
     * Keep the Idempotency-Key with your order and send it again when you retry after a
     * timeout: the same key and body answer the first result again (header
     * `idempotent-replayed`), checkoutUrl included. Without one, a random key is made for
     * this call's own retries.
     *
     * @param array{amount: int, currency?: string, reference: string, successUrl?: ?string, failureUrl?: ?string, language?: ?string, metadata?: ?array<string, mixed>} $payment
     *        amount in centimes (Money::toCentimes), before the fee; currency `DZD` (the default
     *        here); reference: your order number, 1 to 255 characters, unique per key; language
     *        `ar`, `fr` (default) or `en`; metadata: any JSON object up to 4 KB
     * @return RegisteredPayment
     */
    public function registerPayment(array $payment, ?string $idempotencyKey = null): array
    {
        $payment += ['currency' => 'DZD'];
        return $this->data('registerPayment', [], [], $payment, $idempotencyKey ?? self::newIdempotencyKey());
    }

    /**
     * GET /api/v1/payments/{id}: the payment as it is now (never its checkout link).
     *
     * @return Payment
     */
    public function getPayment(string $id): array
    {
        return $this->data('getPayment', ['id' => $id]);
    }

    /**
     * POST /api/v1/payments/{id}/refund: the whole remaining amount, or $amount centimes.
     * `refund.status` is `succeeded`, or `pending` (HTTP 202) while the card network has
     * not confirmed it: call again later with the same Idempotency-Key to learn the outcome.
     *
     * @return RefundedPayment the payment, with `refund` (id, amount, status)
     */
    public function refundPayment(string $id, ?int $amount = null, ?string $idempotencyKey = null): array
    {
        $body = $amount === null ? [] : ['amount' => $amount];
        return $this->data('refundPayment', ['id' => $id], [], $body, $idempotencyKey ?? self::newIdempotencyKey());
    }

    /**
     * POST /api/v1/payments/{id}/cancel: a hosted-checkout payment not paid yet ends
     * `cancelled` (a cancelled one answers again; a paid one is ConflictException
     * PAYMENT_INSTANCE409_NOT_CANCELLABLE).
     *
     * @return Payment
     */
    public function cancelPayment(string $id): array
    {
        return $this->data('cancelPayment', ['id' => $id]);
    }

    /**
     * POST /api/v1/payments/{id}/receipt/email: emails the receipt of a succeeded payment
     * (20 an hour per merchant: RateLimitException with retryAfter beyond that).
     * Not retried on 503, which may hide an email that left.
     *
     * @param string|null $language `ar`, `fr` or `en`; the payment's language by default
     * @return ReceiptResult
     */
    public function emailReceipt(string $id, string $email, ?string $language = null): array
    {
        $body = ['email' => $email];
        if ($language !== null) {
            $body['language'] = $language;
        }
        return $this->data('emailReceipt', ['id' => $id], [], $body);
    }

    /**
     * GET /api/v1/payments: one page, newest first. Pass `nextCursor` back as `cursor`,
     * or use allPayments().
     *
     * @param array{limit?: int, cursor?: string, status?: string, channel?: string, reference?: string, referencePrefix?: string, createdFrom?: string|\DateTimeInterface, createdTo?: string|\DateTimeInterface, metadataKey?: string, metadataValue?: string, paymentLinkId?: string} $filters
     *        status: created, processing, success, failed, expired, cancelled, refunded;
     *        channel: CHECKOUT or AGENCY; createdFrom inclusive, createdTo exclusive
     * @return PaymentsPage
     */
    public function listPayments(array $filters = []): array
    {
        return $this->data('listPayments', [], $filters);
    }

    /**
     * Every payment the filters match, newest first, fetching pages as the loop goes.
     *
     * @param array<string, mixed> $filters listPayments' filters (`limit` is the page size)
     * @return \Generator<int, Payment>
     */
    public function allPayments(array $filters = []): \Generator
    {
        return $this->paginate('listPayments', $filters, 'payments');
    }

    /**
     * GET /api/v1/payments/export: every payment the filters match, as CSV streamed as it
     * is written (any size; read it with rows(), chunks() or saveTo()). A bad filter
     * throws here, before any byte. `dialect` `standard` (default, for programs) or
     * `spreadsheet` (French or Arabic Excel); `format` `xlsx` for a workbook instead.
     *
     * @param array<string, mixed> $filters listPayments' filters without limit and cursor, plus format and dialect
     */
    public function exportPayments(array $filters = []): Download
    {
        return $this->download('exportPayments', [], $filters);
    }

    // ---------------------------------------------------------------- status, QR

    /**
     * GET /partner/payments/v1/{reference}/status: whether dzpay holds a lock on a product
     * reference and whether it was paid. Branch on `stage` (locked, paid, released,
     * refunded, not_found) or `locked`; only released, refunded and not_found mean nothing
     * is held. An unknown reference is `not_found`, never 404. At most 60 a minute.
     *
     * @return StatusRecord
     */
    public function getReferenceStatus(string $reference): array
    {
        return $this->data('getReferenceStatus', ['reference' => $reference]);
    }

    /**
     * POST /set-qr-config: the DZD amounts a static QR code offers (one: paid directly;
     * several: the payer picks), replacing any previous configuration.
     *
     * A 429 is retried; a 503 or a lost connection only when $singleUse is false (a repeat
     * could arm a single-use configuration again after a payer used it): with $singleUse,
     * ask listQrCodes() what the code offers before setting it again.
     *
     * @param list<int|float>                    $amounts   dinars, positive, at most two decimals, 1 to 20 of them
     * @param \DateTimeInterface|string|null      $expiresAt null: permanent
     * @throws \InvalidArgumentException for an amount that is not a positive number of dinars
     *                                   with at most two decimals (nothing is sent)
     */
    public function setQrConfig(string $token, array $amounts, bool $singleUse, \DateTimeInterface|string|null $expiresAt = null): void
    {
        $body = ['token' => $token, 'amounts' => array_map(self::qrAmount(...), array_values($amounts)), 'singleUse' => $singleUse];
        if ($expiresAt !== null) {
            $body['expiresAt'] = $expiresAt;
        }
        $this->call('setQrConfig', [], [], $body, null, safe: !$singleUse);
    }

    /** POST /un-set-qr-config: the QR code offers no amount any more (also fine when it had none). */
    public function unsetQrConfig(string $token): void
    {
        $this->call('unsetQrConfig', [], [], ['token' => $token]);
    }

    /**
     * GET /api/v1/qr-codes: one page of the merchant's static QR codes, newest first.
     *
     * @param array{limit?: int, cursor?: string} $options
     * @return array{qrCodes: list<array<string, mixed>>, nextCursor: ?string}
     */
    public function listQrCodes(array $options = []): array
    {
        return $this->data('listQrCodes', [], $options);
    }

    /**
     * @param array{limit?: int} $options
     * @return \Generator<int, array<string, mixed>>
     */
    public function allQrCodes(array $options = []): \Generator
    {
        return $this->paginate('listQrCodes', $options, 'qrCodes');
    }

    /**
     * GET /api/v1/qr-codes/{token}/image: the code to print, SVG unless `format` is `png`
     * (`size` 128 to 1024 pixels). Cache it by etag(): a token's image never changes.
     *
     * @param array{format?: string, size?: int} $options
     */
    public function qrCodeImage(string $token, array $options = []): Download
    {
        return $this->download('qrCodeImage', ['token' => $token], $options);
    }

    // ---------------------------------------------------------------- reports

    /**
     * GET /api/v1/reports/daily: per Algiers day from `from` to `to` (YYYY-MM-DD, both
     * included; the last 30 days by default), in DZD and in centimes.
     *
     * @param array{from?: string, to?: string} $range
     * @return array<string, mixed>
     */
    public function dailyReport(array $range = []): array
    {
        return $this->data('dailyReport', [], $range);
    }

    /**
     * GET /api/v1/reports/daily/export: the same report as CSV (`dialect` standard or
     * spreadsheet) or `format` xlsx.
     *
     * @param array{from?: string, to?: string, format?: string, dialect?: string} $options
     */
    public function exportDailyReport(array $options = []): Download
    {
        return $this->download('exportDailyReport', [], $options);
    }

    // ---------------------------------------------------------------- webhooks, events

    /**
     * GET /api/v1/webhooks/settings: where webhooks go and which kinds (never a secret).
     *
     * @return array{url: ?string, events: list<string>, signingSecretCreatedAt?: ?string, previousSecretValidUntil?: ?string}
     */
    public function getWebhookSettings(): array
    {
        return $this->data('getWebhookSettings');
    }

    /**
     * PUT /api/v1/webhooks/settings: `url` (null: back to {API_URL}/webhooks/platform) and
     * `events` (payment.success, payment.fail, payment.refunded); an absent field is kept.
     * The first call answers the new signing secret, this once: store it.
     *
     * @param array{url?: ?string, events?: list<string>} $settings
     * @return array<string, mixed>
     */
    public function setWebhookSettings(array $settings): array
    {
        return $this->data('setWebhookSettings', [], [], $settings);
    }

    /**
     * POST /api/v1/webhooks/signing-secret/rotate: a new `whsec_` secret, shown once; the
     * previous one keeps signing `webhook-signature` for $graceHours (0 to 168, default 24).
     *
     * @return array<string, mixed>
     */
    public function rotateSigningSecret(?int $graceHours = null): array
    {
        return $this->data('rotateSigningSecret', [], [], $graceHours === null ? [] : ['graceHours' => $graceHours]);
    }

    /**
     * POST /api/v1/webhooks/test: a signed `webhook.test` event sent now, and how the
     * endpoint answered (`ok`, `statusCode`, `latencyMs`, `error`).
     *
     * @return array<string, mixed>
     */
    public function sendTestWebhook(): array
    {
        return $this->data('sendTestWebhook', [], [], []);
    }

    /**
     * GET /api/v1/events: the merchant's events, newest first, one page.
     *
     * @param array{limit?: int, cursor?: string, type?: string, paymentId?: string} $filters
     * @return array{events: list<array<string, mixed>>, nextCursor: ?string}
     */
    public function listEvents(array $filters = []): array
    {
        return $this->data('listEvents', [], $filters);
    }

    /**
     * @param array<string, mixed> $filters
     * @return \Generator<int, array<string, mixed>>
     */
    public function allEvents(array $filters = []): \Generator
    {
        return $this->paginate('listEvents', $filters, 'events');
    }

    /**
     * POST /api/v1/events/{id}/replay: the event delivered again, with the same id.
     *
     * @return array<string, mixed>
     */
    public function replayEvent(string $id): array
    {
        return $this->data('replayEvent', ['id' => $id]);
    }

    /**
     * GET /api/v1/payments/{id}/webhooks: the payment's deliveries and their attempts,
     * oldest first.
     *
     * @return list<array<string, mixed>>
     */
    public function listPaymentWebhooks(string $paymentId): array
    {
        $data = $this->data('listPaymentWebhooks', ['id' => $paymentId]);
        return $data['deliveries'] ?? [];
    }

    /**
     * GET /api/v1/webhooks/deliveries: every delivery, newest first, with its attempts.
     *
     * @param array{limit?: int, cursor?: string, outcome?: string, type?: string, paymentId?: string, from?: string, to?: string} $filters
     *        outcome: delivered, failing or given_up; from/to: Algiers days, both included
     * @return array{deliveries: list<array<string, mixed>>, nextCursor: ?string}
     */
    public function listWebhookDeliveries(array $filters = []): array
    {
        return $this->data('listWebhookDeliveries', [], $filters);
    }

    /**
     * @param array<string, mixed> $filters
     * @return \Generator<int, array<string, mixed>>
     */
    public function allWebhookDeliveries(array $filters = []): \Generator
    {
        return $this->paginate('listWebhookDeliveries', $filters, 'deliveries');
    }

    /**
     * POST /api/v1/webhooks/deliveries/{id}/replay: sent again, same event id, a fresh
     * retry schedule.
     *
     * @return array<string, mixed>
     */
    public function replayWebhookDelivery(string $deliveryId): array
    {
        return $this->data('replayWebhookDelivery', ['id' => $deliveryId]);
    }

    // ---------------------------------------------------------------- payment links

    /**
     * POST /api/v1/payment-links: a page to share where payers pay by card. A fixed
     * `amount`, or `minAmount` and `maxAmount` for the payer to choose (centimes); `url`
     * is the page. Not retried on 503 (a retry could make a second link).
     *
     * @param array{label: string, amount?: ?int, minAmount?: ?int, maxAmount?: ?int, currency?: string, singleUse?: bool, expiresAt?: string|\DateTimeInterface|null, language?: string, metadata?: ?array<string, mixed>} $link
     * @return PaymentLink
     */
    public function createPaymentLink(array $link): array
    {
        return $this->data('createPaymentLink', [], [], $link);
    }

    /**
     * GET /api/v1/payment-links: one page, newest first.
     *
     * @param array{limit?: int, cursor?: string} $options
     * @return array{links: list<PaymentLink>, nextCursor: ?string}
     */
    public function listPaymentLinks(array $options = []): array
    {
        return $this->data('listPaymentLinks', [], $options);
    }

    /**
     * @param array{limit?: int} $options
     * @return \Generator<int, PaymentLink>
     */
    public function allPaymentLinks(array $options = []): \Generator
    {
        return $this->paginate('listPaymentLinks', $options, 'links');
    }

    /**
     * GET /api/v1/payment-links/{id}.
     *
     * @return PaymentLink
     */
    public function getPaymentLink(string $id): array
    {
        return $this->data('getPaymentLink', ['id' => $id]);
    }

    /**
     * POST /api/v1/payment-links/{id}/deactivate: for good; again answers the link as it is.
     *
     * @return PaymentLink
     */
    public function deactivatePaymentLink(string $id): array
    {
        return $this->data('deactivatePaymentLink', ['id' => $id]);
    }

    /**
     * GET /api/v1/payment-links/{id}/image: the link's QR code, SVG unless `format` is png.
     *
     * @param array{format?: string, size?: int} $options
     */
    public function paymentLinkImage(string $id, array $options = []): Download
    {
        return $this->download('paymentLinkImage', ['id' => $id], $options);
    }

    // ---------------------------------------------------------------- balance, audit

    /**
     * GET /api/v1/balance: captured, fees, refunds, net, paid out and balance, overall
     * and per Algiers day from `from` to `to` (the last 30 days by default), in DZD and
     * in centimes.
     *
     * @param array{from?: string, to?: string} $range
     * @return array<string, mixed>
     */
    public function getBalance(array $range = []): array
    {
        return $this->data('getBalance', [], $range);
    }

    /**
     * GET /api/v1/payouts: a page of payouts to the merchant's wallet, newest first.
     *
     * @param array{limit?: int, cursor?: string} $options
     * @return array{payouts: list<array<string, mixed>>, nextCursor: ?string}
     */
    public function listPayouts(array $options = []): array
    {
        return $this->data('listPayouts', [], $options);
    }

    /**
     * @param array{limit?: int} $options
     * @return \Generator<int, array<string, mixed>>
     */
    public function allPayouts(array $options = []): \Generator
    {
        return $this->paginate('listPayouts', $options, 'payouts');
    }

    /**
     * GET /api/v1/statements/{month}: a month's statement (YYYY-MM), PDF unless `format`
     * is csv or xlsx.
     *
     * @param array{format?: string, dialect?: string, language?: string} $options
     */
    public function downloadStatement(string $month, array $options = []): Download
    {
        return $this->download('downloadStatement', ['month' => $month], $options);
    }

    /**
     * GET /api/v1/audit-events: one page of the audit log, newest first.
     *
     * @param array{limit?: int, cursor?: string, action?: string} $options
     * @return array{events: list<array<string, mixed>>, nextCursor: ?string}
     */
    public function listAuditEvents(array $options = []): array
    {
        return $this->data('listAuditEvents', [], $options);
    }

    /**
     * @param array<string, mixed> $options
     * @return \Generator<int, array<string, mixed>>
     */
    public function allAuditEvents(array $options = []): \Generator
    {
        return $this->paginate('listAuditEvents', $options, 'events');
    }

    // ---------------------------------------------------------------- internals

    /**
     * An operation's `data`.
     *
     * @param array<string, string>     $params path parameters
     * @param array<string, mixed>      $query
     * @param array<string, mixed>|null $body
     * @return array<string, mixed>
     */
    private function data(string $operation, array $params = [], array $query = [], ?array $body = null, ?string $idempotencyKey = null): array
    {
        $answer = $this->call($operation, $params, $query, $body, $idempotencyKey);
        if (!is_array($answer) || !array_key_exists('data', $answer) || !is_array($answer['data'])) {
            $response = $this->lastResponse;
            throw new UnexpectedResponseException(
                sprintf('dzpay: %s answered %d without a data object', $operation, $response?->status ?? 0),
                $response?->status ?? 0,
                $response?->body ?? '',
                $idempotencyKey,
            );
        }
        return $answer['data'];
    }

    /**
     * Sends an operation's request, retrying what may be retried, and decodes its JSON
     * answer (null for an empty one, such as a 204).
     *
     * @param array<string, string>     $params
     * @param array<string, mixed>      $query
     * @param array<string, mixed>|null $body
     * @param bool|null                 $safe   whether a 503 or a lost connection may be retried;
     *                                          the operation's `retry` by default
     * @return mixed
     */
    private function call(string $operation, array $params = [], array $query = [], ?array $body = null, ?string $idempotencyKey = null, ?bool $safe = null): mixed
    {
        $this->lastResponse = null;
        $request = $this->request($operation, $params, $query, $body, $idempotencyKey, 'application/json');
        $safe ??= self::OPERATIONS[$operation]['retry'];
        for ($attempt = 0; ; $attempt++) {
            try {
                $response = $this->transport->send($request);
            } catch (ConnectionException $error) {
                if ($safe && $attempt < $this->maxRetries) {
                    ($this->sleep)($this->backoff($attempt));
                    continue;
                }
                throw $idempotencyKey === null ? $error : $error->withIdempotencyKey($idempotencyKey);
            }
            $this->lastResponse = $response;
            if ($response->isSuccess()) {
                return $this->decode($operation, $response, $idempotencyKey);
            }
            $error = ApiException::fromResponse($response, $idempotencyKey);
            $delay = $this->retryDelay($error, $safe, $attempt);
            if ($delay === null) {
                throw $error;
            }
            ($this->sleep)($delay);
        }
    }

    /**
     * Sends an operation whose answer is a file, returning once its headers are in.
     *
     * @param array<string, string> $params
     * @param array<string, mixed>  $query
     */
    private function download(string $operation, array $params, array $query): Download
    {
        $this->lastResponse = null;
        $request = $this->request($operation, $params, $query, null, null, null);
        $safe = self::OPERATIONS[$operation]['retry'];
        for ($attempt = 0; ; $attempt++) {
            try {
                $response = $this->transport->stream($request);
            } catch (ConnectionException $error) {
                if ($safe && $attempt < $this->maxRetries) {
                    ($this->sleep)($this->backoff($attempt));
                    continue;
                }
                throw $error;
            }
            if ($response->isSuccess()) {
                $this->lastResponse = new HttpResponse($response->status, $response->headers, '');
                return new Download($response);
            }
            $whole = $this->whole($response);
            $this->lastResponse = $whole;
            $error = ApiException::fromResponse($whole);
            $delay = $this->retryDelay($error, $safe, $attempt);
            if ($delay === null) {
                throw $error;
            }
            ($this->sleep)($delay);
        }
    }

    /**
     * @param array<string, mixed> $query
     * @return \Generator<int, array<string, mixed>>
     */
    private function paginate(string $operation, array $query, string $itemsKey): \Generator
    {
        $seen = [];
        while (true) {
            $page = $this->data($operation, [], $query);
            foreach ($page[$itemsKey] ?? [] as $item) {
                yield $item;
            }
            $cursor = $page['nextCursor'] ?? null;
            if (!is_string($cursor) || $cursor === '') {
                return;
            }
            if (isset($seen[$cursor])) {
                throw new UnexpectedResponseException("dzpay: $operation gave the cursor $cursor twice", 200, '');
            }
            $seen[$cursor] = true;
            $query['cursor'] = $cursor;
        }
    }

    /**
     * Seconds to wait before retrying an answer, or null when it is not retried: a 429
     * always; a 503, or a 409 whose Idempotency-Key's first request is still running,
     * where the operation is safe to repeat.
     */
    private function retryDelay(ApiException $error, bool $safe, int $attempt): ?float
    {
        $status = $error->httpStatus;
        $retryable = $status === 429 || ($safe && ($status === 503 || self::keyStillRunning($error)));
        if ($attempt >= $this->maxRetries || !$retryable) {
            return null;
        }
        $delay = $error->retryAfter === null ? $this->backoff($attempt) : (float) $error->retryAfter;
        return $delay <= $this->maxRetryDelay ? $delay : null;
    }

    /**
     * A 409 IDEMPOTENCY409_KEY_REUSED because the key's first request is still running
     * (`details.inProgress`, or the message older servers send), not a key reused with
     * another body: its retry answers the first request's outcome once it is stored.
     */
    private static function keyStillRunning(ApiException $error): bool
    {
        if ($error->httpStatus !== 409 || $error->errorCode !== ErrorCode::IDEMPOTENCY409_KEY_REUSED) {
            return false;
        }
        if (($error->details['inProgress'] ?? null) === true) {
            return true;
        }
        $message = is_array($error->body) ? ($error->body['message'] ?? null) : null;
        return is_string($message) && str_starts_with($message, 'a request with this Idempotency-Key is still running');
    }

    /**
     * A QR amount as sent: a positive number of dinars with at most two decimals, a
     * float written as its two-decimal value (0.1 + 0.2 is sent as 0.3).
     */
    private static function qrAmount(mixed $amount): int|float
    {
        if (!is_int($amount) && !is_float($amount)) {
            throw new \InvalidArgumentException('dzpay: QR amounts are numbers of dinars, got ' . get_debug_type($amount));
        }
        $centimes = Money::toCentimes($amount);
        if ($centimes <= 0) {
            throw new \InvalidArgumentException('dzpay: a QR amount must be positive, got ' . var_export($amount, true));
        }
        return is_int($amount) ? $amount : $centimes / 100.0;
    }

    /** 0.5 s, 1 s, 2 s, … when dzpay did not say how long to wait. */
    private function backoff(int $attempt): float
    {
        return min($this->maxRetryDelay, 0.5 * (2 ** $attempt));
    }

    /**
     * @param array<string, string>     $params
     * @param array<string, mixed>      $query
     * @param array<string, mixed>|null $body
     */
    private function request(string $operation, array $params, array $query, ?array $body, ?string $idempotencyKey, ?string $accept): HttpRequest
    {
        $spec = self::OPERATIONS[$operation];
        $path = preg_replace_callback('/\{(\w+)\}/', static function (array $match) use ($params, $operation): string {
            $value = $params[$match[1]] ?? null;
            if (!is_string($value) || $value === '') {
                throw new \InvalidArgumentException("dzpay: $operation needs a non-empty {$match[1]}");
            }
            return rawurlencode($value);
        }, $spec[1]);
        $url = ($spec['partner'] ? $this->partnerBaseUrl : $this->baseUrl) . $path . self::queryString($query);
        $headers = [
            'x-api-key' => $this->apiKey,
            'User-Agent' => sprintf('dzpay-php/%s PHP/%s', self::VERSION, PHP_VERSION),
        ];
        if ($accept !== null) {
            $headers['Accept'] = $accept;
        }
        $json = null;
        if ($body !== null) {
            $headers['Content-Type'] = 'application/json';
            $json = self::json($body);
        }
        if ($idempotencyKey !== null) {
            if ($idempotencyKey === '' || strlen($idempotencyKey) > 255) {
                throw new \InvalidArgumentException('dzpay: an Idempotency-Key is 1 to 255 characters');
            }
            $headers['Idempotency-Key'] = $idempotencyKey;
        }
        return new HttpRequest($spec[0], $url, $headers, $json);
    }

    private function decode(string $operation, HttpResponse $response, ?string $idempotencyKey): mixed
    {
        if (trim($response->body) === '') {
            return null;
        }
        try {
            return json_decode($response->body, true, 512, JSON_THROW_ON_ERROR | JSON_BIGINT_AS_STRING);
        } catch (\JsonException $error) {
            throw new UnexpectedResponseException(
                sprintf('dzpay: %s answered %d with a body that is not JSON: %s', $operation, $response->status, $error->getMessage()),
                $response->status,
                $response->body,
                $idempotencyKey,
            );
        }
    }

    /** An error answer read whole (at most 64 KiB: error bodies are small). */
    private function whole(StreamedResponse $response): HttpResponse
    {
        try {
            $body = $response->readAll(65536);
        } catch (ConnectionException) {
            $body = '';
        }
        return new HttpResponse($response->status, $response->headers, $body);
    }

    /** @param array<string, mixed> $query */
    private static function queryString(array $query): string
    {
        $pairs = [];
        foreach ($query as $name => $value) {
            if ($value === null) {
                continue;
            }
            if ($value instanceof \DateTimeInterface) {
                $value = self::isoTime($value);
            } elseif (is_bool($value)) {
                $value = $value ? 'true' : 'false';
            } elseif (!is_scalar($value)) {
                throw new \InvalidArgumentException("dzpay: the query parameter $name must be a string or a number");
            }
            $pairs[] = rawurlencode((string) $name) . '=' . rawurlencode((string) $value);
        }
        return $pairs === [] ? '' : '?' . implode('&', $pairs);
    }

    /**
     * A request body as JSON: an object even when empty, dates as ISO 8601, an empty
     * `metadata` array as `{}`.
     *
     * @param array<string, mixed> $body
     */
    private static function json(array $body): string
    {
        $normalize = static function (mixed $value, ?string $key = null) use (&$normalize): mixed {
            if ($value instanceof \DateTimeInterface) {
                return self::isoTime($value);
            }
            if (is_array($value)) {
                if ($value === [] && $key === 'metadata') {
                    return new \stdClass();
                }
                foreach ($value as $k => $item) {
                    $value[$k] = $normalize($item, is_string($k) ? $k : null);
                }
            }
            return $value;
        };
        $normalized = $normalize($body);
        return json_encode(
            $normalized === [] ? new \stdClass() : $normalized,
            JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION,
        );
    }

    private static function isoTime(\DateTimeInterface $time): string
    {
        return $time->format('Y-m-d\TH:i:s.vP');
    }

    private static function checkedBaseUrl(string $url): string
    {
        $url = rtrim(trim($url), '/');
        if (preg_match('#^https?://[^/?\#\s]+(/[^?\#\s]*)?\z#i', $url) !== 1) {
            throw new \InvalidArgumentException("dzpay: the base URL must be an absolute http(s) URL without query, got '$url'");
        }
        return $url;
    }
}
