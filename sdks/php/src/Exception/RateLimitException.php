<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * 429: too many requests (60 a minute on the status endpoint, 20 receipt emails an hour,
 * RATE429_LIMIT_EXCEEDED). The client retries it by itself when Retry-After is short
 * enough (maxRetryDelay); this is thrown when it is not, or retries ran out.
 * $retryAfter says in how many seconds to try again.
 */
class RateLimitException extends ApiException
{
}
