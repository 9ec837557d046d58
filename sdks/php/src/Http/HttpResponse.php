<?php

declare(strict_types=1);

namespace Dzpay\Http;

/**
 * A whole response: status, headers (names in lower case) and body.
 */
final class HttpResponse
{
    /**
     * @param array<string, string> $headers lower-case name => value (the last one when repeated)
     */
    public function __construct(
        public readonly int $status,
        public readonly array $headers,
        public readonly string $body,
    ) {
    }

    public function header(string $name): ?string
    {
        return $this->headers[strtolower($name)] ?? null;
    }

    public function isSuccess(): bool
    {
        return $this->status >= 200 && $this->status < 300;
    }
}
