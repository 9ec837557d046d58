<?php

declare(strict_types=1);

namespace Dzpay\Partner;

/**
 * An answer ready to send to dzpay: an HTTP status and a JSON body.
 */
final class PartnerResponse
{
    /**
     * @param array<string, mixed> $body
     */
    public function __construct(
        public readonly int $status,
        public readonly array $body,
    ) {
    }

    /** The body as JSON, as it goes on the wire. */
    public function json(): string
    {
        return json_encode($this->body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION);
    }

    /** Sends it: status line, `Content-Type: application/json`, the body. */
    public function send(): void
    {
        $json = $this->json();
        if (!headers_sent()) {
            http_response_code($this->status);
            header('Content-Type: application/json; charset=utf-8');
            header('Content-Length: ' . strlen($json));
            header('Cache-Control: no-store');
        }
        echo $json;
    }
}
