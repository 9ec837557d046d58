<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * No answer from dzpay: the connection was refused, timed out, or broke (the code is
 * curl's error number). Whether a POST was applied is unknown: retry it with the same
 * Idempotency-Key.
 */
class ConnectionException extends \RuntimeException implements DzpayException
{
}
