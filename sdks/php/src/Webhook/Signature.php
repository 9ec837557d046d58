<?php

declare(strict_types=1);

namespace Dzpay\Webhook;

/**
 * The two signatures dzpay puts on every webhook (docs/webhooks.md, "Signature").
 */
final class Signature
{
    /**
     * `X-Signature`: hex HMAC-SHA256 keyed with the webhook signing secret (its UTF-8
     * bytes, as written, also for a `whsec_` secret) over the raw body bytes followed by
     * the timestamp's decimal digits, with nothing in between.
     */
    public static function dzpay(string $rawBody, int|string $timestamp, string $secret): string
    {
        return hash_hmac('sha256', $rawBody . (string) $timestamp, $secret);
    }

    /**
     * One `webhook-signature` entry of the Standard Webhooks scheme: `v1,` and the base64
     * HMAC-SHA256 of `{id}.{timestamp}.{body}`. A secret written `whsec_<base64>` keys
     * with the decoded bytes, any other secret with its UTF-8 bytes.
     */
    public static function standard(string $id, int|string $timestamp, string $rawBody, string $secret): string
    {
        $digest = hash_hmac('sha256', $id . '.' . (string) $timestamp . '.' . $rawBody, self::standardKey($secret), true);
        return 'v1,' . base64_encode($digest);
    }

    /**
     * The Standard Webhooks key of a secret. The base64 after `whsec_` is read as
     * dzpay's own (Node's) decoder reads it: URL-safe letters accepted, other stray
     * characters skipped, everything from the first `=` on ignored.
     */
    public static function standardKey(string $secret): string
    {
        if (!str_starts_with($secret, 'whsec_')) {
            return $secret;
        }
        $text = strtr(substr($secret, 6), '-_', '+/');
        $equals = strpos($text, '=');
        if ($equals !== false) {
            $text = substr($text, 0, $equals);
        }
        $text = (string) preg_replace('#[^A-Za-z0-9+/]#', '', $text);
        $rest = strlen($text) % 4;
        if ($rest === 1) {
            $text = substr($text, 0, -1);
        } elseif ($rest > 1) {
            $text .= str_repeat('=', 4 - $rest);
        }
        return (string) base64_decode($text, false);
    }
}
