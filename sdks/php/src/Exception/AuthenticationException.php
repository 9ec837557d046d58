<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * 401: the API key is missing, unknown or revoked, or its merchant is inactive (AUTH401_UNAUTHORIZED_ACCESS; PARTNER_API401_UNAUTHORIZED on the status endpoint).
 */
class AuthenticationException extends ApiException
{
}
