<?php

declare(strict_types=1);

namespace Dzpay\Exception;

use Dzpay\Http\HttpResponse;

/**
 * dzpay answered with an error. Branch on $errorCode (the stable identifier, see
 * Dzpay\ErrorCode), never on the message, whose wording may change.
 *
 * The body is one of the API's error shapes:
 * - standard: `statusCode`, `message`, `errorCode`, `timestamp`, optional `details`;
 * - validation list (400 of the QR configuration endpoints): `message` is a list of
 *   strings, given here as $validationMessages, and $errorCode is null;
 * - rate limit (429 of the status endpoint): `statusCode` and `message`, no errorCode.
 *
 * Subclasses by HTTP status: InvalidRequestException (400), AuthenticationException
 * (401), PermissionException (403), NotFoundException (404), ConflictException (409),
 * GoneException (410), UnprocessableException (422), RateLimitException (429),
 * BadGatewayException (502), ServiceUnavailableException (503), ServerException (other 5xx).
 *
 * $idempotencyKey is the Idempotency-Key the request was sent with (yours, or the one the
 * client made for a registration or refund), null for requests sent without one. To learn
 * how a registration or refund ended, call again with this same key, never a new one.
 */
class ApiException extends \RuntimeException implements DzpayException
{
    /**
     * @param int                       $httpStatus         the HTTP status of the answer
     * @param string|null               $errorCode          the standard envelope's errorCode
     * @param array<string, mixed>|null $details            the standard envelope's details
     * @param list<string>              $validationMessages the validation list's messages
     * @param int|null                  $retryAfter         seconds, from the Retry-After header
     * @param mixed                     $body               the decoded JSON body (arrays), or null
     * @param array<string, string>     $headers            the answer's headers, names in lower case
     * @param string|null               $idempotencyKey     the Idempotency-Key the request carried
     */
    final public function __construct(
        string $message,
        public readonly int $httpStatus,
        public readonly ?string $errorCode = null,
        public readonly ?array $details = null,
        public readonly array $validationMessages = [],
        public readonly ?int $retryAfter = null,
        public readonly mixed $body = null,
        public readonly string $rawBody = '',
        public readonly array $headers = [],
        public readonly ?string $idempotencyKey = null,
    ) {
        parent::__construct($message, $httpStatus);
    }

    /** The `message` of the answer, as dzpay wrote it (for logs, not for branching). */
    public function apiMessage(): string
    {
        if ($this->validationMessages !== []) {
            return implode('; ', $this->validationMessages);
        }
        if (is_array($this->body) && isset($this->body['message']) && is_string($this->body['message'])) {
            return $this->body['message'];
        }
        return 'HTTP ' . $this->httpStatus;
    }

    /**
     * The exception for an answer that is not a success, of the class its status calls for.
     *
     * @param string|null $idempotencyKey the Idempotency-Key the request was sent with
     */
    public static function fromResponse(HttpResponse $response, ?string $idempotencyKey = null): self
    {
        $body = null;
        if ($response->body !== '') {
            try {
                $body = json_decode($response->body, true, 512, JSON_THROW_ON_ERROR);
            } catch (\JsonException) {
                $body = null;
            }
        }
        $errorCode = null;
        $details = null;
        $validation = [];
        $message = 'HTTP ' . $response->status;
        if (is_array($body)) {
            if (isset($body['errorCode']) && is_string($body['errorCode'])) {
                $errorCode = $body['errorCode'];
                if (isset($body['details']) && is_array($body['details'])) {
                    $details = $body['details'];
                }
            }
            if (isset($body['message']) && is_string($body['message'])) {
                $message = $body['message'];
            } elseif (isset($body['message']) && is_array($body['message'])) {
                $validation = array_values(array_filter($body['message'], 'is_string'));
                $message = implode('; ', $validation);
            } elseif (isset($body['errorMessage']) && is_string($body['errorMessage'])) {
                $message = $body['errorMessage'];
            }
        }
        $class = self::classFor($response->status);
        return new $class(
            sprintf('dzpay answered %d%s: %s', $response->status, $errorCode !== null ? ' ' . $errorCode : '', $message),
            $response->status,
            $errorCode,
            $details,
            $validation,
            self::retryAfterSeconds($response->header('retry-after')),
            $body,
            $response->body,
            $response->headers,
            $idempotencyKey,
        );
    }

    /**
     * Seconds a Retry-After header asks to wait: a number of seconds or an HTTP date;
     * null when absent or unreadable.
     */
    public static function retryAfterSeconds(?string $value, ?int $now = null): ?int
    {
        if ($value === null) {
            return null;
        }
        $value = trim($value);
        if (preg_match('/^\d{1,10}\z/', $value) === 1) {
            return (int) $value;
        }
        $time = \DateTimeImmutable::createFromFormat(\DateTimeInterface::RFC7231, $value, new \DateTimeZone('UTC'));
        if ($time === false) {
            return null;
        }
        return max(0, $time->getTimestamp() - ($now ?? time()));
    }

    /** @return class-string<ApiException> */
    private static function classFor(int $status): string
    {
        return match (true) {
            $status === 400 => InvalidRequestException::class,
            $status === 401 => AuthenticationException::class,
            $status === 403 => PermissionException::class,
            $status === 404 => NotFoundException::class,
            $status === 409 => ConflictException::class,
            $status === 410 => GoneException::class,
            $status === 422 => UnprocessableException::class,
            $status === 429 => RateLimitException::class,
            $status === 502 => BadGatewayException::class,
            $status === 503 => ServiceUnavailableException::class,
            $status >= 500 => ServerException::class,
            default => self::class,
        };
    }
}
