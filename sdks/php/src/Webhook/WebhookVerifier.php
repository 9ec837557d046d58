<?php

declare(strict_types=1);

namespace Dzpay\Webhook;

use Dzpay\Exception\WebhookVerificationException;

/**
 * Checks that a webhook request comes from dzpay, on the **raw body** as received
 * (`file_get_contents('php://input')`), never on a body decoded and encoded again.
 *
 * dzpay signs every request twice: `X-Signature` over body ‖ `X-Timestamp` (hex), and
 * the Standard Webhooks `webhook-signature` over `{webhook-id}.{webhook-timestamp}.{body}`
 * (base64, space-separated entries during a secret rotation). Either one verifying with
 * any of the configured secrets is enough; the timestamp must be within the tolerance
 * (300 s) of now in either direction; digests are compared in constant time.
 *
 * ```php
 * $verifier = new WebhookVerifier(getenv('DZPAY_WEBHOOK_SECRET'));
 * $result = $verifier->verify(file_get_contents('php://input'), Headers::fromGlobals());
 * if (!$result->ok) { http_response_code($result->refusalStatus()); exit; }
 * $event = $result->event;
 * ```
 */
final class WebhookVerifier
{
    public const DEFAULT_TOLERANCE_SECONDS = 300;

    private const MESSAGES = [
        VerificationResult::MISSING_HEADERS => 'X-Signature and X-Timestamp (or the webhook-* headers) are required, with the timestamp in unix seconds',
        VerificationResult::STALE_TIMESTAMP => 'the timestamp is too far from now',
        VerificationResult::BAD_SIGNATURE => 'the signature does not match',
        VerificationResult::MALFORMED_BODY => 'the body is not a dzpay event',
    ];

    /** @var list<string> */
    private readonly array $secrets;

    /** The fewest key bytes a `whsec_` secret may decode to. */
    public const MIN_WHSEC_KEY_BYTES = 16;

    /**
     * @param string|list<string> $signingSecrets the webhook signing secret; while rotating,
     *                                            both (new and old): any one may match. A
     *                                            `whsec_` secret must decode to at least 16
     *                                            bytes; another one must not be empty
     * @throws \InvalidArgumentException for a secret that is empty or too short to sign
     */
    public function __construct(
        string|array $signingSecrets,
        private readonly int $toleranceSeconds = self::DEFAULT_TOLERANCE_SECONDS,
    ) {
        $secrets = is_string($signingSecrets) ? [$signingSecrets] : array_values($signingSecrets);
        if ($secrets === []) {
            throw new \InvalidArgumentException('dzpay: signingSecret(s) must be non-empty strings');
        }
        foreach ($secrets as $secret) {
            if (!is_string($secret) || $secret === '') {
                throw new \InvalidArgumentException('dzpay: signingSecret(s) must be non-empty strings');
            }
            // 'whsec_', 'whsec_=' or 'whsec_A' key the HMAC with nothing (or next to
            // nothing) that anyone could not guess: every forged webhook would verify.
            if (str_starts_with($secret, 'whsec_') && strlen(Signature::standardKey($secret)) < self::MIN_WHSEC_KEY_BYTES) {
                throw new \InvalidArgumentException(sprintf(
                    'dzpay: a whsec_ webhook signing secret must decode to at least %d bytes of key; one of the secrets given decodes to %d (cut short or mistyped? copy the whole secret dzpay gave)',
                    self::MIN_WHSEC_KEY_BYTES,
                    strlen(Signature::standardKey($secret)),
                ));
            }
        }
        if ($toleranceSeconds < 0) {
            throw new \InvalidArgumentException('dzpay: toleranceSeconds must be 0 or more');
        }
        $this->secrets = $secrets;
    }

    /**
     * Verifies a request and reads its event. Never throws on what a request holds.
     *
     * @param string                                  $rawBody the body exactly as received
     * @param array<string, string|list<string>|null> $headers getallheaders(), Headers::fromGlobals(), PSR-7 getHeaders() or $_SERVER
     * @param int|null                                $now     unix seconds (tests); the clock by default
     */
    public function verify(string $rawBody, array $headers, ?int $now = null): VerificationResult
    {
        $now ??= time();
        $signature = Headers::get($headers, 'x-signature');
        $timestamp = Headers::get($headers, 'x-timestamp');
        $id = Headers::get($headers, 'webhook-id');
        $standardTimestamp = Headers::get($headers, 'webhook-timestamp');
        $standardSignatures = Headers::get($headers, 'webhook-signature');

        $check = null;
        if ($signature !== null && $timestamp !== null) {
            $check = self::timestampCheck(Headers::checkTimestamp($timestamp, $now, $this->toleranceSeconds));
            if ($check === 'ok') {
                $check = $this->dzpaySignatureMatches($rawBody, $timestamp, $signature);
            }
        }
        if ($check !== 'ok' && $id !== null && $standardTimestamp !== null && $standardSignatures !== null) {
            $standard = self::timestampCheck(Headers::checkTimestamp($standardTimestamp, $now, $this->toleranceSeconds));
            if ($standard === 'ok') {
                $standard = $this->standardSignatureMatches($id, $standardTimestamp, $rawBody, $standardSignatures);
            }
            // The first scheme's reason stands unless the second one passes.
            if ($check === null || $standard === 'ok') {
                $check = $standard;
            }
        }
        if ($check === null) {
            return self::failure(VerificationResult::MISSING_HEADERS);
        }
        if ($check !== 'ok') {
            return self::failure($check);
        }
        $event = WebhookEvent::fromRawBody($rawBody);
        if (is_string($event)) {
            return VerificationResult::invalid(VerificationResult::MALFORMED_BODY, $event);
        }
        return VerificationResult::valid($event);
    }

    /**
     * verify(), throwing when the request does not verify.
     *
     * @param array<string, string|list<string>|null> $headers
     * @throws WebhookVerificationException with the reason
     */
    public function constructEvent(string $rawBody, array $headers, ?int $now = null): WebhookEvent
    {
        $result = $this->verify($rawBody, $headers, $now);
        if (!$result->ok || $result->event === null) {
            throw new WebhookVerificationException('dzpay webhook refused: ' . $result->message, (string) $result->reason);
        }
        return $result->event;
    }

    private static function timestampCheck(string $result): string
    {
        return match ($result) {
            'ok' => 'ok',
            'stale' => VerificationResult::STALE_TIMESTAMP,
            default => VerificationResult::MISSING_HEADERS,
        };
    }

    private function dzpaySignatureMatches(string $rawBody, string $timestamp, string $received): string
    {
        if (preg_match('/^[0-9a-f]{64}\z/i', $received) !== 1) {
            return VerificationResult::BAD_SIGNATURE;
        }
        $receivedDigest = (string) hex2bin($received);
        $matches = false;
        foreach ($this->secrets as $secret) {
            $expected = hash_hmac('sha256', $rawBody . $timestamp, $secret, true);
            // Every secret is tried, so the time taken does not tell which one matched.
            $matches = hash_equals($expected, $receivedDigest) || $matches;
        }
        return $matches ? 'ok' : VerificationResult::BAD_SIGNATURE;
    }

    private function standardSignatureMatches(string $id, string $timestamp, string $rawBody, string $received): string
    {
        // Several space-separated entries during a rotation; versions other than v1 are skipped.
        $digests = [];
        foreach (explode(' ', $received) as $entry) {
            if (preg_match('#^v1,[A-Za-z0-9+/]{43}=\z#', $entry) === 1) {
                $digests[] = (string) base64_decode(substr($entry, 3), true);
            }
        }
        $matches = false;
        foreach ($this->secrets as $secret) {
            $expected = hash_hmac('sha256', $id . '.' . $timestamp . '.' . $rawBody, Signature::standardKey($secret), true);
            foreach ($digests as $digest) {
                $matches = hash_equals($expected, $digest) || $matches;
            }
        }
        return $matches ? 'ok' : VerificationResult::BAD_SIGNATURE;
    }

    private static function failure(string $reason): VerificationResult
    {
        return VerificationResult::invalid($reason, self::MESSAGES[$reason]);
    }
}
