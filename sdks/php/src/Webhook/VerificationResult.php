<?php

declare(strict_types=1);

namespace Dzpay\Webhook;

/**
 * What WebhookVerifier::verify() found: the event, or why the request is refused.
 */
final class VerificationResult
{
    public const MISSING_HEADERS = 'missing_headers';
    public const STALE_TIMESTAMP = 'stale_timestamp';
    public const BAD_SIGNATURE = 'bad_signature';
    public const MALFORMED_BODY = 'malformed_body';

    /**
     * @param string|null $reason missing_headers, stale_timestamp, bad_signature or malformed_body
     */
    private function __construct(
        public readonly bool $ok,
        public readonly ?WebhookEvent $event,
        public readonly ?string $reason,
        public readonly string $message,
    ) {
    }

    public static function valid(WebhookEvent $event): self
    {
        return new self(true, $event, null, 'verified');
    }

    public static function invalid(string $reason, string $message): self
    {
        return new self(false, null, $reason, $message);
    }

    /** The HTTP status to answer dzpay with when the request is refused: 400 for a body that is no event, else 401. */
    public function refusalStatus(): int
    {
        return $this->reason === self::MALFORMED_BODY ? 400 : 401;
    }
}
