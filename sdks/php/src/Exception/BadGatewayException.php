<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * 502: the card network (CARDNET502_REGISTRATION_FAILED: retry with a new reference) or the mail server (RECEIPT502_EMAIL_FAILED: retry later) refused.
 */
class BadGatewayException extends ApiException
{
}
