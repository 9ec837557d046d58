<?php

declare(strict_types=1);

namespace Dzpay\Http;

use Dzpay\Exception\ConnectionException;

/**
 * A response whose status and headers are known and whose body is still arriving: read it
 * chunk by chunk with chunks(), so a large export never sits in memory whole.
 */
final class StreamedResponse
{
    /** @var \Closure(): ?string */
    private \Closure $next;
    /** @var (\Closure(): void)|null */
    private ?\Closure $closer;
    private bool $started = false;

    /**
     * @param array<string, string> $headers lower-case name => value
     * @param \Closure(): ?string   $next    the next chunk of the body, null once it ended;
     *                                       throws ConnectionException when the body is cut short
     * @param (\Closure(): void)|null $closer frees the connection (called once)
     */
    public function __construct(
        public readonly int $status,
        public readonly array $headers,
        \Closure $next,
        ?\Closure $closer = null,
    ) {
        $this->next = $next;
        $this->closer = $closer;
    }

    /**
     * A response from chunks already at hand (stub transports, tests).
     *
     * @param array<string, string> $headers
     * @param iterable<string>      $chunks
     */
    public static function fromChunks(int $status, array $headers, iterable $chunks): self
    {
        $generator = (static function () use ($chunks): \Generator {
            yield from $chunks;
        })();
        $first = true;
        return new self($status, array_change_key_case($headers, CASE_LOWER), static function () use ($generator, &$first): ?string {
            if ($first) {
                $first = false;
            } else {
                $generator->next();
            }
            return $generator->valid() ? (string) $generator->current() : null;
        });
    }

    public function header(string $name): ?string
    {
        return $this->headers[strtolower($name)] ?? null;
    }

    public function isSuccess(): bool
    {
        return $this->status >= 200 && $this->status < 300;
    }

    /**
     * The body's chunks as they arrive. Can be walked once.
     *
     * @return \Generator<int, string>
     * @throws ConnectionException when the connection breaks before the body ended
     */
    public function chunks(): \Generator
    {
        if ($this->started) {
            throw new \LogicException('dzpay: a streamed body can be read only once');
        }
        $this->started = true;
        try {
            while (($chunk = ($this->next)()) !== null) {
                if ($chunk !== '') {
                    yield $chunk;
                }
            }
        } finally {
            $this->close();
        }
    }

    /** The rest of the body, at most $limit bytes (the rest is dropped). */
    public function readAll(int $limit = PHP_INT_MAX): string
    {
        $body = '';
        foreach ($this->chunks() as $chunk) {
            if (strlen($body) < $limit) {
                $body .= substr($chunk, 0, $limit - strlen($body));
            }
        }
        return $body;
    }

    public function close(): void
    {
        if ($this->closer !== null) {
            $closer = $this->closer;
            $this->closer = null;
            $closer();
        }
    }

    public function __destruct()
    {
        $this->close();
    }
}
