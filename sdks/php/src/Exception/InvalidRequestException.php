<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * 400: a field is missing or malformed (details.failures lists them; on the QR endpoints, validationMessages), an amount out of range (PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE), an unsupported currency, metadata too large (VALIDATION422_UNPROCESSABLE_ENTITY travels with 400).
 */
class InvalidRequestException extends ApiException
{
}
