<?php

declare(strict_types=1);

namespace Dzpay\Webhook;

/**
 * A verified webhook event (docs/webhooks.md, "Body"). Fields dzpay may add later are
 * kept in $data and $raw but not required, so an older library accepts newer events.
 *
 * `data` of a payment event: paymentId, reference (the product reference for AGENCY,
 * your order reference for CHECKOUT), channel (AGENCY or CHECKOUT), amount (**dinars**,
 * at most two decimals; on payment.refunded, what this refund gave back), currency
 * (DZD), status (diagnostics only), orderId, paidAt, metadata, failureReason, and
 * refundedAmount (payment.refunded only, dinars). `data` of a webhook.test: message.
 *
 * Deliveries are at least once: deduplicate on $id, which every retry and replay keeps.
 */
final class WebhookEvent
{
    public const PAYMENT_SUCCESS = 'payment.success';
    public const PAYMENT_FAIL = 'payment.fail';
    public const PAYMENT_REFUNDED = 'payment.refunded';
    public const TEST = 'webhook.test';

    private const PAYMENT_TYPES = [self::PAYMENT_SUCCESS, self::PAYMENT_FAIL, self::PAYMENT_REFUNDED];

    /** RFC 3339 with seconds and a zone (Z or ±hh:mm), as dzpay's schema reads createdAt and paidAt. */
    private const DATETIME = '/^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))\z/';

    /**
     * @param array<string, mixed> $data
     * @param array<string, mixed> $raw the whole body, decoded
     */
    private function __construct(
        public readonly string $id,
        public readonly string $type,
        public readonly string $createdAt,
        public readonly array $data,
        public readonly array $raw,
    ) {
    }

    public function isTest(): bool
    {
        return $this->type === self::TEST;
    }

    /** data.paymentId; null for a test event. */
    public function paymentId(): ?string
    {
        $value = $this->data['paymentId'] ?? null;
        return is_string($value) ? $value : null;
    }

    /** data.reference; null for a test event. */
    public function reference(): ?string
    {
        $value = $this->data['reference'] ?? null;
        return is_string($value) ? $value : null;
    }

    /**
     * The payment link this event's payment was made through (dzpay names those payments
     * `link-{paymentLinkId}-{n}`), or null.
     *
     * @return array{paymentLinkId: string, number: int}|null
     */
    public function paymentLink(): ?array
    {
        $reference = $this->reference();
        return $reference === null ? null : self::paymentLinkOf($reference);
    }

    /**
     * The payment link a reference names: `link-{uuid}-{n}` gives its id and n.
     *
     * @return array{paymentLinkId: string, number: int}|null
     */
    public static function paymentLinkOf(string $reference): ?array
    {
        if (preg_match('/^link-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-([1-9][0-9]{0,15})\z/', $reference, $match) !== 1) {
            return null;
        }
        return ['paymentLinkId' => $match[1], 'number' => (int) $match[2]];
    }

    /**
     * Reads a raw body (already verified) into an event, or says why it is not one.
     *
     * @return self|string the event, or the reason it is refused
     */
    public static function fromRawBody(string $rawBody): self|string
    {
        try {
            $json = json_decode($rawBody, false, 10000, JSON_THROW_ON_ERROR);
        } catch (\JsonException $error) {
            if ($error->getCode() !== JSON_ERROR_INVALID_PROPERTY_NAME) {
                return 'the body is not JSON';
            }
            // A key starting with NUL cannot be a PHP property; decode as arrays instead.
            try {
                $json = self::objectsOf(json_decode($rawBody, true, 10000, JSON_THROW_ON_ERROR));
            } catch (\JsonException) {
                return 'the body is not JSON';
            }
        }
        $problem = self::testEventProblem($json);
        if ($problem !== null) {
            $problem = self::paymentEventProblem($json);
            if ($problem !== null) {
                return 'the body is not a dzpay event: ' . $problem;
            }
        }
        /** @var \stdClass $json */
        $raw = json_decode($rawBody, true, 10000, JSON_THROW_ON_ERROR);
        return new self($json->id, $json->type, $json->createdAt, is_array($raw['data'] ?? null) ? $raw['data'] : [], $raw);
    }

    private static function testEventProblem(mixed $json): ?string
    {
        if (!$json instanceof \stdClass) {
            return 'expected an object';
        }
        return self::idTypeCreatedAtProblem($json, [self::TEST])
            ?? (!isset($json->data) || !$json->data instanceof \stdClass ? 'data must be an object' : null)
            ?? (!property_exists($json->data, 'message') || !is_string($json->data->message) ? 'data.message must be a string' : null);
    }

    private static function paymentEventProblem(mixed $json): ?string
    {
        if (!$json instanceof \stdClass) {
            return 'expected an object';
        }
        $problem = self::idTypeCreatedAtProblem($json, self::PAYMENT_TYPES);
        if ($problem !== null) {
            return $problem;
        }
        if (!isset($json->data) || !$json->data instanceof \stdClass) {
            return 'data must be an object';
        }
        $data = $json->data;
        $has = static fn (string $field): bool => property_exists($data, $field);
        $checks = [
            'paymentId' => static fn ($v) => is_string($v) && $v !== '',
            'reference' => static fn ($v) => is_string($v),
            'channel' => static fn ($v) => $v === 'AGENCY' || $v === 'CHECKOUT',
            'amount' => static fn ($v) => self::isNumber($v),
            'currency' => static fn ($v) => $v === 'DZD',
            'status' => static fn ($v) => is_string($v),
            'orderId' => static fn ($v) => $v === null || is_string($v),
            'paidAt' => static fn ($v) => $v === null || (is_string($v) && preg_match(self::DATETIME, $v) === 1),
            'metadata' => static fn ($v) => $v === null || $v instanceof \stdClass,
            'failureReason' => static fn ($v) => $v === null || is_string($v),
        ];
        foreach ($checks as $field => $valid) {
            if (!$has($field) || !$valid($data->{$field})) {
                return "data.$field is missing or invalid";
            }
        }
        if ($has('refundedAmount') && !self::isNumber($data->refundedAmount)) {
            return 'data.refundedAmount must be a number';
        }
        return null;
    }

    /** @param list<string> $types */
    private static function idTypeCreatedAtProblem(\stdClass $json, array $types): ?string
    {
        if (!isset($json->id) || !is_string($json->id) || $json->id === '') {
            return 'id must be a non-empty string';
        }
        if (!isset($json->type) || !in_array($json->type, $types, true)) {
            return 'type must be one of ' . implode(', ', $types);
        }
        if (!isset($json->createdAt) || !is_string($json->createdAt) || preg_match(self::DATETIME, $json->createdAt) !== 1) {
            return 'createdAt must be an ISO 8601 date-time with a zone';
        }
        return null;
    }

    private static function isNumber(mixed $value): bool
    {
        return is_int($value) || (is_float($value) && is_finite($value));
    }

    /** Arrays decoded from JSON objects back to objects (lists stay arrays). */
    private static function objectsOf(mixed $value): mixed
    {
        if (!is_array($value)) {
            return $value;
        }
        if ($value !== [] && array_is_list($value)) {
            return array_map([self::class, 'objectsOf'], $value);
        }
        $object = new \stdClass();
        foreach ($value as $key => $item) {
            // Only for checking the shape: a name PHP refuses gets a harmless prefix.
            $name = (string) $key;
            $object->{str_starts_with($name, "\0") ? '_' . $name : $name} = self::objectsOf($item);
        }
        return $object;
    }
}
