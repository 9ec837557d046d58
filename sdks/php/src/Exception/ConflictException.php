<?php

declare(strict_types=1);

namespace Dzpay\Exception;

/**
 * 409: a reference used before (PAYMENT_INSTANCE409_DUPLICATE_REFERENCE), an Idempotency-Key reused with another body or still running (IDEMPOTENCY409_KEY_REUSED; still running, `details['inProgress']` true, is retried by the client as a 503 is, and thrown once retries ran out: call again later with the same key), a payment that cannot be refunded, cancelled or receipted in its state.
 */
class ConflictException extends ApiException
{
}
