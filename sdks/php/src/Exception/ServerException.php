<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * A 5xx other than 502 and 503: a bug on dzpay's side (INTERNAL500_ERROR); the log has the request.
 */
class ServerException extends ApiException
{
}
