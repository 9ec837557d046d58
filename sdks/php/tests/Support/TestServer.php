<?php

declare(strict_types=1);

namespace Dzpay\Tests\Support;

/**
 * A `php -S` server on a free local port, for the tests: either the scripted dzpay stand-in
 * (router.php, answering what the test queued and recording what it was sent) or one of
 * the examples.
 */
final class TestServer
{
    /** @var resource */
    private $process;
    public readonly string $url;
    public readonly string $log;

    /**
     * @param array<string, string> $env
     */
    public function __construct(string $router, array $env = [], ?string $docroot = null)
    {
        $port = self::freePort();
        $this->url = "http://127.0.0.1:$port";
        $command = [PHP_BINARY, '-d', 'output_buffering=0', '-d', 'display_errors=stderr', '-S', "127.0.0.1:$port"];
        if ($docroot !== null) {
            $command[] = '-t';
            $command[] = $docroot;
        }
        $command[] = $router;
        $this->log = sys_get_temp_dir() . "/dzpay-php-test-server-$port.log";
        $process = proc_open(
            $command,
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $this->log, 'a'], 2 => ['file', $this->log, 'a']],
            $pipes,
            null,
            $env + getenv(),
        );
        if (!is_resource($process)) {
            throw new \RuntimeException('cannot start php -S');
        }
        $this->process = $process;
        $deadline = microtime(true) + 10;
        while (microtime(true) < $deadline) {
            $socket = @fsockopen('127.0.0.1', $port, $errno, $errstr, 0.2);
            if ($socket !== false) {
                fclose($socket);
                return;
            }
            usleep(50_000);
        }
        $this->stop();
        throw new \RuntimeException("php -S did not start on port $port: " . @file_get_contents($this->log));
    }

    public function stop(): void
    {
        if (is_resource($this->process)) {
            proc_terminate($this->process);
            proc_close($this->process);
            @unlink($this->log);
        }
    }

    public function __destruct()
    {
        $this->stop();
    }

    /** A port nothing listens on right now. */
    public static function freePort(): int
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
        if ($socket === false) {
            throw new \RuntimeException("no free port: $errstr");
        }
        $name = (string) stream_socket_get_name($socket, false);
        fclose($socket);
        return (int) substr($name, strrpos($name, ':') + 1);
    }
}
