<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * 422: the merchant has no wallet to settle into (SETTLEMENT422_MERCHANT_WALLET_MISSING).
 */
class UnprocessableException extends ApiException
{
}
