<?php

declare(strict_types=1);

namespace Dzpay\Partner;

/**
 * Whether a request to the product lookup comes from dzpay.
 */
final class RequestVerification
{
    public const MISSING_HEADERS = 'missing_headers';
    public const BAD_SECRET = 'bad_secret';
    public const STALE_TIMESTAMP = 'stale_timestamp';

    /**
     * @param string|null $reason missing_headers, bad_secret or stale_timestamp
     */
    public function __construct(
        public readonly bool $ok,
        public readonly ?string $reason,
        public readonly string $message,
    ) {
    }
}
