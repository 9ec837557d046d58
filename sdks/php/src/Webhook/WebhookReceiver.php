<?php

declare(strict_types=1);

namespace Dzpay\Webhook;

use Dzpay\Partner\PartnerResponse;
use Dzpay\Partner\ProductLookup;

/**
 * The endpoint dzpay posts its webhooks to, `POST {API_URL}/webhooks/platform`: reads
 * the raw body, verifies it, hands the event to $onEvent and answers
 * `{"success": true}`; 401 for a request that does not verify, 400 for a signed body that
 * is no event, 503 when $onEvent throws (dzpay then sends the event again).
 *
 * ```php
 * (new WebhookReceiver(getenv('DZPAY_WEBHOOK_SECRET'), function (WebhookEvent $event): void {
 *     // store it once per $event->id, then answer; do slow work afterwards
 * }))->run();
 * ```
 *
 * dzpay waits 15 s for the answer and delivers at least once: keep $onEvent short and
 * deduplicate on $event->id.
 */
final class WebhookReceiver
{
    private readonly WebhookVerifier $verifier;
    /** @var \Closure(WebhookEvent): mixed */
    private readonly \Closure $onEvent;
    /** @var (\Closure(WebhookEvent): mixed)|null */
    private readonly ?\Closure $onTest;

    /**
     * @param string|list<string> $signingSecrets the webhook signing secret (both while rotating);
     *                                            refused as WebhookVerifier refuses it (empty, or
     *                                            a `whsec_` one decoding to under 16 bytes)
     * @param callable            $onEvent        fn(WebhookEvent $event): void, for payment events
     * @param callable|null       $onTest         fn(WebhookEvent $event): void, for webhook.test
     *                                            (without it a verified test is answered 200 and
     *                                            goes no further)
     */
    public function __construct(
        string|array $signingSecrets,
        callable $onEvent,
        ?callable $onTest = null,
        int $toleranceSeconds = WebhookVerifier::DEFAULT_TOLERANCE_SECONDS,
        private readonly int $maxBodyBytes = 1048576,
    ) {
        $this->verifier = new WebhookVerifier($signingSecrets, $toleranceSeconds);
        $this->onEvent = \Closure::fromCallable($onEvent);
        $this->onTest = $onTest === null ? null : \Closure::fromCallable($onTest);
    }

    /**
     * The answer to one request.
     *
     * @param array<string, string|list<string>|null> $headers
     */
    public function handle(string $rawBody, array $headers, ?int $now = null): PartnerResponse
    {
        $result = $this->verifier->verify($rawBody, $headers, $now);
        if (!$result->ok || $result->event === null) {
            return $result->reason === VerificationResult::MALFORMED_BODY
                ? ProductLookup::errorResponse(400, 'BAD_REQUEST', $result->message)
                : ProductLookup::errorResponse(401, 'UNAUTHORIZED', $result->message);
        }
        $event = $result->event;
        try {
            if ($event->isTest()) {
                if ($this->onTest !== null) {
                    ($this->onTest)($event);
                }
            } else {
                ($this->onEvent)($event);
            }
        } catch (\Throwable $error) {
            error_log(sprintf('dzpay webhook %s: the handler failed: %s', $event->id, $error->getMessage()));
            return ProductLookup::error(ProductLookup::SERVICE_UNAVAILABLE, 'the event could not be processed; send it again');
        }
        return new PartnerResponse(200, ['success' => true]);
    }

    /** Serves this request: POST only, the raw body from php://input. */
    public function run(): void
    {
        if (($_SERVER['REQUEST_METHOD'] ?? '') !== 'POST') {
            ProductLookup::errorResponse(405, 'METHOD_NOT_ALLOWED', 'dzpay posts its webhooks')->send();
            return;
        }
        $input = fopen('php://input', 'rb');
        $rawBody = $input === false ? '' : (string) stream_get_contents($input, $this->maxBodyBytes + 1);
        if (strlen($rawBody) > $this->maxBodyBytes) {
            ProductLookup::errorResponse(413, 'PAYLOAD_TOO_LARGE', 'the body is too large')->send();
            return;
        }
        $this->handle($rawBody, Headers::fromGlobals())->send();
    }
}
