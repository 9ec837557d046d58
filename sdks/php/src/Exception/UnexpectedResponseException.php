<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * dzpay answered a success whose body is not what the API describes (not JSON, no
 * `data`). Usually a proxy in the way, or a base URL that is not dzpay's. $idempotencyKey
 * is the Idempotency-Key the request was sent with (null without one): call again with it
 * to learn what a registration or refund did.
 */
class UnexpectedResponseException extends \RuntimeException implements DzpayException
{
    public function __construct(
        string $message,
        public readonly int $httpStatus,
        public readonly string $rawBody,
        public readonly ?string $idempotencyKey = null,
    ) {
        parent::__construct($message);
    }
}
