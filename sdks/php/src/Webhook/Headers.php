<?php

declare(strict_types=1);

namespace Dzpay\Webhook;

/**
 * Request headers as PHP gives them: getallheaders() (`X-Signature` => '…'), a PSR-7
 * request's getHeaders() (name => list of values), or $_SERVER (`HTTP_X_SIGNATURE`).
 */
final class Headers
{
    /**
     * The single value of a header, looked up without regard to case. A header sent
     * twice is treated as absent, as is an empty one: two timestamps or two secrets are
     * not something dzpay sends.
     *
     * @param array<string, string|list<string>|null> $headers
     */
    public static function get(array $headers, string $name): ?string
    {
        $name = strtolower($name);
        $found = null;
        $count = 0;
        foreach ($headers as $key => $value) {
            if (strtolower((string) $key) !== $name || $value === null) {
                continue;
            }
            if (is_array($value)) {
                if (count($value) !== 1) {
                    return null;
                }
                $value = reset($value);
            }
            if (!is_string($value) && !is_int($value)) {
                return null;
            }
            $found = (string) $value;
            $count++;
        }
        if ($count === 0) {
            // $_SERVER-style names: HTTP_X_SIGNATURE
            $serverKey = 'HTTP_' . strtoupper(str_replace('-', '_', $name));
            if (isset($headers[$serverKey]) && is_string($headers[$serverKey])) {
                $found = $headers[$serverKey];
                $count = 1;
            }
        }
        return $count === 1 && $found !== '' ? $found : null;
    }

    /**
     * This request's headers, names in lower case, from $_SERVER (works under every
     * SAPI: php-fpm, Apache's mod_php, the built-in server).
     *
     * @param array<string, mixed>|null $server $_SERVER by default
     * @return array<string, string>
     */
    public static function fromGlobals(?array $server = null): array
    {
        $server ??= $_SERVER;
        $headers = [];
        foreach ($server as $key => $value) {
            if (!is_string($value)) {
                continue;
            }
            if (str_starts_with((string) $key, 'HTTP_')) {
                $headers[strtolower(str_replace('_', '-', substr((string) $key, 5)))] = $value;
            } elseif ($key === 'CONTENT_TYPE' || $key === 'CONTENT_LENGTH') {
                $headers[strtolower(str_replace('_', '-', (string) $key))] = $value;
            }
        }
        if (!isset($headers['authorization']) && isset($server['REDIRECT_HTTP_AUTHORIZATION']) && is_string($server['REDIRECT_HTTP_AUTHORIZATION'])) {
            // Apache with CGI/FastCGI hands Authorization over under this name only.
            $headers['authorization'] = $server['REDIRECT_HTTP_AUTHORIZATION'];
        }
        return $headers;
    }

    /**
     * Whether a unix-seconds timestamp is within $toleranceSeconds of $now, either way:
     * `ok`, `malformed` (not 1 to 12 digits) or `stale`.
     */
    public static function checkTimestamp(string $value, int $now, int $toleranceSeconds): string
    {
        if (preg_match('/^[0-9]{1,12}\z/', $value) !== 1) {
            return 'malformed';
        }
        return abs($now - (int) $value) <= $toleranceSeconds ? 'ok' : 'stale';
    }
}
