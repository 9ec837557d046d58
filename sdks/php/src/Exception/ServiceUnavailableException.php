<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * 503 (SERVICE503_UNAVAILABLE): a service behind the gateway did not answer in time.
 * Retried by the client where repeating is safe (reads, requests with an
 * Idempotency-Key, idempotent changes); thrown once retries ran out, or at once for
 * requests that are not safe to repeat (a receipt email may have left).
 */
class ServiceUnavailableException extends ApiException
{
}
