<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * Implemented by every exception this library throws: catch it to catch them all.
 */
interface DzpayException extends \Throwable
{
}
