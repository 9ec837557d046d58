<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * A webhook request that did not verify. $reason is one of `missing_headers`,
 * `stale_timestamp`, `bad_signature` or `malformed_body`: answer 400 for the last,
 * 401 for the others.
 */
class WebhookVerificationException extends \RuntimeException implements DzpayException
{
    public function __construct(string $message, public readonly string $reason)
    {
        parent::__construct($message);
    }
}
