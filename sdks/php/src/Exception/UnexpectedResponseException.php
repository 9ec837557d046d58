<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * dzpay answered a success whose body is not what the API describes (not JSON, no
 * `data`). Usually a proxy in the way, or a base URL that is not dzpay's.
 */
class UnexpectedResponseException extends \RuntimeException implements DzpayException
{
    public function __construct(
        string $message,
        public readonly int $httpStatus,
        public readonly string $rawBody,
    ) {
        parent::__construct($message);
    }
}
