<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * 403: the key is valid but the merchant account is not active (PARTNER_API403_MERCHANT_INACTIVE, status endpoint).
 */
class PermissionException extends ApiException
{
}
