<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * 404: no such payment, QR code, payment link, event or delivery for the key's merchant and mode.
 */
class NotFoundException extends ApiException
{
}
