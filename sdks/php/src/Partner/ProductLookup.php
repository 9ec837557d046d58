<?php

declare(strict_types=1);

namespace Dzpay\Partner;

use Dzpay\Webhook\Headers;

/**
 * The partner's product lookup, `GET {API_URL}/{reference}`: dzpay asks it for a
 * product's price when a payer opens a reference's page and again when they press pay.
 * It checks dzpay's `Authorization: Bearer <API_SECRET>` (constant time) and
 * `X-Timestamp`, URL-decodes the reference, and answers what your lookup returns.
 *
 * ```php
 * $lookup = new ProductLookup(getenv('DZPAY_API_SECRET'), function (string $reference) {
 *     $book = findBook($reference);
 *     if ($book === null) return ProductLookup::error('NOT_FOUND', 'No book has this reference');
 *     if ($book->sold) return ProductLookup::error('ALREADY_PAID', 'This book is sold');
 *     return ProductLookup::product(['reference' => $book->sku, 'amount' => 1500.5, 'label' => $book->title]);
 * });
 * $lookup->run('/dzpay');   // serves GET /dzpay/{reference}
 * ```
 *
 * Answer the reference **as you store it** (dzpay sells under the reference you answer),
 * within 4 seconds.
 */
final class ProductLookup
{
    public const NOT_FOUND = 'NOT_FOUND';
    public const ALREADY_PAID = 'ALREADY_PAID';
    public const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE';

    private const ERROR_STATUS = [self::NOT_FOUND => 404, self::ALREADY_PAID => 409, self::SERVICE_UNAVAILABLE => 503];

    /** @var \Closure(string): (PartnerResponse|array<string, mixed>) */
    private readonly \Closure $lookup;

    /**
     * @param string   $apiSecret the API secret dzpay sends as `Authorization: Bearer`
     * @param callable $lookup    fn(string $reference): PartnerResponse|array — product(),
     *                            error(), or a product array (checked by product()); a throw
     *                            answers 503 SERVICE_UNAVAILABLE
     */
    public function __construct(
        private readonly string $apiSecret,
        callable $lookup,
        private readonly int $toleranceSeconds = 300,
    ) {
        if ($apiSecret === '') {
            throw new \InvalidArgumentException('dzpay: apiSecret must be a non-empty string');
        }
        $this->lookup = \Closure::fromCallable($lookup);
    }

    /**
     * The answer to one request: 401 when it is not dzpay's, else the lookup's answer.
     *
     * @param string                                  $reference already URL-decoded
     * @param array<string, string|list<string>|null> $headers
     */
    public function handle(string $reference, array $headers, ?int $now = null): PartnerResponse
    {
        $verified = self::verifyRequest($headers, $this->apiSecret, $this->toleranceSeconds, $now);
        if (!$verified->ok) {
            return self::errorResponse(401, 'UNAUTHORIZED', $verified->message);
        }
        try {
            $answer = ($this->lookup)($reference);
            return $answer instanceof PartnerResponse ? $answer : self::product($answer);
        } catch (\Throwable $error) {
            error_log('dzpay product lookup failed: ' . $error->getMessage());
            return self::error(self::SERVICE_UNAVAILABLE, 'the product cannot be looked up right now');
        }
    }

    /**
     * Serves this request: the reference is the path after $pathPrefix (`/dzpay` for
     * API_URL `https://shop.example/dzpay`), URL-decoded (`BOOK%2F42%20%231` is `BOOK/42 #1`).
     */
    public function run(string $pathPrefix = ''): void
    {
        if (($_SERVER['REQUEST_METHOD'] ?? 'GET') !== 'GET') {
            self::errorResponse(405, 'METHOD_NOT_ALLOWED', 'dzpay asks for products with GET')->send();
            return;
        }
        $reference = self::referenceFromUri((string) ($_SERVER['REQUEST_URI'] ?? '/'), $pathPrefix);
        if ($reference === null) {
            self::error(self::NOT_FOUND, 'no reference in the path')->send();
            return;
        }
        $this->handle($reference, Headers::fromGlobals())->send();
    }

    /**
     * The reference of a request URI (`/dzpay/BOOK%2F42?x=1` with prefix `/dzpay` gives
     * `BOOK/42`), or null when the URI is not under the prefix or names none.
     */
    public static function referenceFromUri(string $requestUri, string $pathPrefix = ''): ?string
    {
        $path = explode('?', $requestUri, 2)[0];
        $prefix = rtrim($pathPrefix, '/') . '/';
        if (!str_starts_with($path, $prefix)) {
            return null;
        }
        $encoded = substr($path, strlen($prefix));
        if ($encoded === '' || str_contains($encoded, '/')) {
            return null; // dzpay encodes a / inside a reference as %2F
        }
        return rawurldecode($encoded);
    }

    /**
     * Checks that a request comes from dzpay: `Authorization: Bearer <API_SECRET>`
     * compared in constant time, and an `X-Timestamp` within the tolerance of now.
     *
     * @param array<string, string|list<string>|null> $headers
     */
    public static function verifyRequest(array $headers, string $apiSecret, int $toleranceSeconds = 300, ?int $now = null): RequestVerification
    {
        if ($apiSecret === '') {
            throw new \InvalidArgumentException('dzpay: apiSecret must be a non-empty string');
        }
        $authorization = Headers::get($headers, 'authorization');
        $timestamp = Headers::get($headers, 'x-timestamp');
        $bearer = null;
        if ($authorization !== null && preg_match('/^Bearer ([^\r\n]+)\z/i', $authorization, $match) === 1) {
            $bearer = $match[1];
        }
        if ($bearer === null || $timestamp === null) {
            return new RequestVerification(false, RequestVerification::MISSING_HEADERS, 'Authorization and X-Timestamp are required');
        }
        // Hashing first gives equal lengths: not even the secret's length leaks.
        if (!hash_equals(hash('sha256', $apiSecret, true), hash('sha256', $bearer, true))) {
            return new RequestVerification(false, RequestVerification::BAD_SECRET, 'the API secret does not match');
        }
        $time = Headers::checkTimestamp($timestamp, $now ?? time(), $toleranceSeconds);
        if ($time === 'malformed') {
            return new RequestVerification(false, RequestVerification::MISSING_HEADERS, 'X-Timestamp must be unix seconds');
        }
        if ($time === 'stale') {
            return new RequestVerification(false, RequestVerification::STALE_TIMESTAMP, 'the timestamp is too far from now');
        }
        return new RequestVerification(true, null, 'verified');
    }

    /**
     * 200 with a product, checked as dzpay will check it: `reference` 1 to 255 characters,
     * `amount` positive **dinars** with at most two decimals, `currency` DZD (the default),
     * optional `label` (≤ 200 characters, shown to the payer), `description` (≤ 1000) and
     * `metadata` (an object). Other fields are dropped.
     *
     * @param array{reference: string, amount: int|float, currency?: string, label?: string, description?: string, metadata?: array<string, mixed>} $product
     * @throws \InvalidArgumentException on a product dzpay would refuse (your bug to fix)
     */
    public static function product(array $product): PartnerResponse
    {
        $reference = $product['reference'] ?? null;
        if (!is_string($reference) || $reference === '' || self::utf16Length($reference) > 255) {
            throw new \InvalidArgumentException('dzpay product: reference must be a string of 1 to 255 characters');
        }
        $amount = $product['amount'] ?? null;
        if (!(is_int($amount) || (is_float($amount) && is_finite($amount))) || $amount <= 0) {
            throw new \InvalidArgumentException('dzpay product: amount must be a positive number of dinars');
        }
        if (floor($amount * 100 + 0.5) / 100 !== (float) $amount) { // as JavaScript's Math.round
            throw new \InvalidArgumentException('dzpay product: amount must have at most two decimals');
        }
        $body = ['reference' => $reference, 'amount' => $amount, 'currency' => $product['currency'] ?? 'DZD'];
        if ($body['currency'] !== 'DZD') {
            throw new \InvalidArgumentException('dzpay product: currency must be DZD');
        }
        foreach (['label' => 200, 'description' => 1000] as $field => $max) {
            if (!array_key_exists($field, $product)) {
                continue;
            }
            if (!is_string($product[$field]) || self::utf16Length($product[$field]) > $max) {
                throw new \InvalidArgumentException("dzpay product: $field must be a string of at most $max characters");
            }
            $body[$field] = $product[$field];
        }
        if (array_key_exists('metadata', $product)) {
            $metadata = $product['metadata'];
            if (!is_array($metadata) && !$metadata instanceof \stdClass) {
                throw new \InvalidArgumentException('dzpay product: metadata must be an object');
            }
            if (is_array($metadata) && $metadata !== [] && array_is_list($metadata)) {
                throw new \InvalidArgumentException('dzpay product: metadata must be an object, not a list');
            }
            $body['metadata'] = $metadata === [] ? new \stdClass() : $metadata;
        }
        return new PartnerResponse(200, $body);
    }

    /**
     * The partner error shape `{error, errorMessage}`: NOT_FOUND 404, ALREADY_PAID 409,
     * SERVICE_UNAVAILABLE 503.
     */
    public static function error(string $code, string $message): PartnerResponse
    {
        if (!isset(self::ERROR_STATUS[$code])) {
            throw new \InvalidArgumentException('dzpay: the partner error codes are NOT_FOUND, ALREADY_PAID and SERVICE_UNAVAILABLE');
        }
        return self::errorResponse(self::ERROR_STATUS[$code], $code, $message);
    }

    /** An error answer with any status and code (401 UNAUTHORIZED, 405, …). */
    public static function errorResponse(int $status, string $error, string $message): PartnerResponse
    {
        return new PartnerResponse($status, ['error' => $error, 'errorMessage' => $message]);
    }

    /** Length as JavaScript counts it (UTF-16 code units), without ext-mbstring. */
    private static function utf16Length(string $text): int
    {
        $points = preg_match_all('/./su', $text);
        if ($points === false) {
            return strlen($text); // not UTF-8: count bytes
        }
        return $points + preg_match_all('/[\x{10000}-\x{10FFFF}]/u', $text);
    }
}
