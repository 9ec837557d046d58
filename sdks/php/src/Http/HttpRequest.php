<?php

declare(strict_types=1);

namespace Dzpay\Http;

/**
 * One request the client sends: what a Transport is given.
 */
final class HttpRequest
{
    /**
     * @param string                $method  GET, POST, PUT or DELETE
     * @param string                $url     absolute URL, query included
     * @param array<string, string> $headers header name => value
     * @param string|null           $body    the JSON body, or null for none
     */
    public function __construct(
        public readonly string $method,
        public readonly string $url,
        public readonly array $headers = [],
        public readonly ?string $body = null,
    ) {
    }

    /** A header's value, looked up without regard to case. */
    public function header(string $name): ?string
    {
        foreach ($this->headers as $key => $value) {
            if (strcasecmp($key, $name) === 0) {
                return $value;
            }
        }
        return null;
    }
}
