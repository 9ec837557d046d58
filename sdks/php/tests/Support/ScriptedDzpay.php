<?php

declare(strict_types=1);

namespace Dzpay\Tests\Support;

/**
 * A stand-in for dzpay's gateway on `php -S`: answers the responses a test queued, in
 * order, and records every request it received (method, URI, headers, raw body).
 */
final class ScriptedDzpay
{
    public readonly TestServer $server;
    public readonly string $state;

    public function __construct()
    {
        $this->state = sys_get_temp_dir() . '/dzpay-php-tests-' . bin2hex(random_bytes(6));
        mkdir($this->state);
        $this->reset();
        $this->server = new TestServer(__DIR__ . '/router.php', ['DZPAY_TEST_STATE' => $this->state]);
    }

    public function url(): string
    {
        return $this->server->url;
    }

    public function reset(): void
    {
        file_put_contents($this->state . '/script.json', '[]');
        file_put_contents($this->state . '/requests.jsonl', '');
        @unlink($this->state . '/go');
    }

    /**
     * Queues one answer.
     *
     * @param array<string, mixed>|string|null $body    JSON-encoded when an array
     * @param array<string, string>            $headers
     * @param list<string>|null                $chunks  the body in parts, flushed one by one
     * @param string|null                      $waitFor after the first chunk, wait (up to 5 s)
     *                                                  until the test created this file
     */
    public function queue(int $status, array|string|null $body = null, array $headers = [], ?array $chunks = null, ?string $waitFor = null): void
    {
        if (is_array($body)) {
            $body = json_encode($body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION);
            $headers += ['Content-Type' => 'application/json; charset=utf-8'];
        }
        $script = json_decode((string) file_get_contents($this->state . '/script.json'), true);
        $script[] = ['status' => $status, 'headers' => (object) $headers, 'body' => $body ?? '', 'chunks' => $chunks, 'waitFor' => $waitFor];
        file_put_contents($this->state . '/script.json', json_encode($script, JSON_THROW_ON_ERROR));
    }

    /** Answers `{statusCode, message, data}` with the given status. */
    public function queueData(int $status, mixed $data, array $headers = []): void
    {
        $this->queue($status, ['statusCode' => $status, 'message' => 'ok', 'data' => $data], $headers);
    }

    /** A standard error envelope. */
    public function queueError(int $status, string $errorCode, string $message, ?array $details = null, array $headers = []): void
    {
        $body = ['statusCode' => $status, 'message' => $message, 'errorCode' => $errorCode, 'timestamp' => '2026-11-21T10:00:00.000Z'];
        if ($details !== null) {
            $body['details'] = $details;
        }
        $this->queue($status, $body, $headers);
    }

    public function release(string $flag): void
    {
        touch($this->state . '/' . $flag);
    }

    /**
     * The requests received so far.
     *
     * @return list<array{method: string, uri: string, headers: array<string, string>, body: string}>
     */
    public function requests(): array
    {
        $lines = array_filter(explode("\n", (string) file_get_contents($this->state . '/requests.jsonl')));
        return array_values(array_map(static fn (string $line) => json_decode($line, true, 512, JSON_THROW_ON_ERROR), $lines));
    }

    public function remaining(): int
    {
        return count(json_decode((string) file_get_contents($this->state . '/script.json'), true));
    }

    public function stop(): void
    {
        $this->server->stop();
        foreach (glob($this->state . '/*') ?: [] as $file) {
            unlink($file);
        }
        @rmdir($this->state);
    }
}
