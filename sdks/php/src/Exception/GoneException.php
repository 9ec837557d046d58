<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * 410: a payment link that expired or was deactivated.
 */
class GoneException extends ApiException
{
}
