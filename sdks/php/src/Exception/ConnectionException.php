<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * No answer from dzpay: the connection was refused, timed out, or broke (the code is
 * curl's error number). Whether a POST was applied is unknown: retry it with the same
 * Idempotency-Key, the one in $idempotencyKey (yours, or the one the client made for a
 * registration or refund; null when the request carried none), never a new one.
 */
class ConnectionException extends \RuntimeException implements DzpayException
{
    /**
     * @param string|null $idempotencyKey the Idempotency-Key the request was sent with
     */
    public function __construct(
        string $message = '',
        int $code = 0,
        ?\Throwable $previous = null,
        public readonly ?string $idempotencyKey = null,
    ) {
        parent::__construct($message, $code, $previous);
    }

    /**
     * This failure, for a request sent with $idempotencyKey: the same message and code,
     * this exception as the previous one (a transport throws without knowing the key).
     */
    public function withIdempotencyKey(string $idempotencyKey): self
    {
        if ($this->idempotencyKey === $idempotencyKey) {
            return $this;
        }
        return new self($this->getMessage(), $this->getCode(), $this, $idempotencyKey);
    }
}
