<?php

declare(strict_types=1);

namespace Dzpay\Http;

use Dzpay\Exception\ConnectionException;

/**
 * The default transport, on ext-curl. Redirects are not followed (dzpay's API never
 * redirects), only http and https are spoken.
 */
final class CurlTransport implements Transport
{
    /**
     * @param float $connectTimeout seconds to open the connection
     * @param float $timeout        seconds for a whole JSON request and its answer
     * @param float $streamIdleTimeout seconds a download may go without receiving a byte
     * @param array<int, mixed> $curlOptions extra CURLOPT_* options (a proxy, a CA bundle)
     */
    public function __construct(
        private readonly float $connectTimeout = 10.0,
        private readonly float $timeout = 60.0,
        private readonly float $streamIdleTimeout = 60.0,
        private readonly array $curlOptions = [],
    ) {
    }

    public function send(HttpRequest $request): HttpResponse
    {
        $handle = $this->handle($request);
        $headers = [];
        $status = 0;
        curl_setopt($handle, CURLOPT_HEADERFUNCTION, self::headerCollector($headers, $status, $done));
        curl_setopt($handle, CURLOPT_RETURNTRANSFER, true);
        curl_setopt($handle, CURLOPT_TIMEOUT_MS, (int) ($this->timeout * 1000));
        $body = curl_exec($handle);
        if ($body === false) {
            $error = curl_error($handle);
            $code = curl_errno($handle);
            curl_close($handle);
            throw new ConnectionException(sprintf('dzpay: %s %s failed: %s', $request->method, $request->url, $error), $code);
        }
        curl_close($handle);
        return new HttpResponse($status, $headers, (string) $body);
    }

    public function stream(HttpRequest $request): StreamedResponse
    {
        $handle = $this->handle($request);
        $headers = [];
        $status = 0;
        $headersDone = false;
        $buffer = '';
        curl_setopt($handle, CURLOPT_HEADERFUNCTION, self::headerCollector($headers, $status, $headersDone));
        curl_setopt($handle, CURLOPT_WRITEFUNCTION, static function ($curl, string $data) use (&$buffer): int {
            $buffer .= $data;
            return strlen($data);
        });
        // No limit on the whole download (an export may be long); a silent one is cut.
        curl_setopt($handle, CURLOPT_LOW_SPEED_LIMIT, 1);
        curl_setopt($handle, CURLOPT_LOW_SPEED_TIME, max(1, (int) ceil($this->streamIdleTimeout)));

        $multi = curl_multi_init();
        curl_multi_add_handle($multi, $handle);
        $running = true;
        $failure = null;
        $closed = false;

        $close = static function () use (&$closed, $multi, $handle): void {
            if ($closed) {
                return;
            }
            $closed = true;
            curl_multi_remove_handle($multi, $handle);
            curl_close($handle);
            curl_multi_close($multi);
        };
        $pump = static function () use ($multi, &$running, &$failure): void {
            do {
                $code = curl_multi_exec($multi, $active);
            } while ($code === CURLM_CALL_MULTI_PERFORM);
            while (($info = curl_multi_info_read($multi)) !== false) {
                if ($info['result'] !== CURLE_OK) {
                    $failure = [$info['result'], curl_error($info['handle'])];
                }
            }
            if ($code !== CURLM_OK) {
                $failure = [$code, curl_multi_strerror($code) ?? 'curl multi error'];
            }
            $running = $active > 0 && $failure === null;
            if ($running && curl_multi_select($multi, 1.0) === -1) {
                usleep(1000);
            }
        };

        while ($running && !$headersDone) {
            $pump();
        }
        if (!$headersDone) {
            $close();
            [$code, $message] = $failure ?? [0, 'the connection closed before a response'];
            throw new ConnectionException(sprintf('dzpay: %s %s failed: %s', $request->method, $request->url, $message), (int) $code);
        }

        $next = static function () use (&$buffer, &$running, &$failure, $pump, $close, $request): ?string {
            while ($buffer === '' && $running) {
                $pump();
            }
            if ($buffer !== '') {
                $chunk = $buffer;
                $buffer = '';
                return $chunk;
            }
            $close();
            if ($failure !== null) {
                throw new ConnectionException(sprintf('dzpay: %s %s was cut short: %s', $request->method, $request->url, $failure[1]), (int) $failure[0]);
            }
            return null;
        };
        return new StreamedResponse($status, $headers, $next, $close);
    }

    /** @return \CurlHandle */
    private function handle(HttpRequest $request)
    {
        $handle = curl_init();
        if ($handle === false) {
            throw new ConnectionException('dzpay: curl_init failed');
        }
        $lines = ['Expect:'];
        foreach ($request->headers as $name => $value) {
            $lines[] = $name . ': ' . $value;
        }
        $protocols = CURLPROTO_HTTP | CURLPROTO_HTTPS;
        $options = [
            CURLOPT_URL => $request->url,
            CURLOPT_CUSTOMREQUEST => $request->method,
            CURLOPT_HTTPHEADER => $lines,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_PROTOCOLS => $protocols,
            CURLOPT_CONNECTTIMEOUT_MS => (int) ($this->connectTimeout * 1000),
            CURLOPT_SSL_VERIFYPEER => true,
            CURLOPT_SSL_VERIFYHOST => 2,
        ];
        if ($request->body !== null) {
            $options[CURLOPT_POSTFIELDS] = $request->body;
        } elseif ($request->method !== 'GET' && $request->method !== 'HEAD') {
            // A POST without a body still says so, as browsers and fetch do.
            $lines[] = 'Content-Length: 0';
            $options[CURLOPT_HTTPHEADER] = $lines;
        }
        curl_setopt_array($handle, $this->curlOptions + $options);
        return $handle;
    }

    /**
     * Collects the status and headers of the final response (a 100 Continue's are
     * dropped), names in lower case.
     *
     * @param array<string, string> $headers
     */
    private static function headerCollector(array &$headers, int &$status, ?bool &$done): \Closure
    {
        $done = false;
        return static function ($curl, string $line) use (&$headers, &$status, &$done): int {
            $trimmed = rtrim($line, "\r\n");
            if (preg_match('#^HTTP/\S+\s+(\d{3})#', $trimmed, $match) === 1) {
                $status = (int) $match[1];
                $headers = [];
                $done = false;
            } elseif ($trimmed === '') {
                if ($status >= 200) {
                    $done = true;
                }
            } elseif (str_contains($trimmed, ':')) {
                [$name, $value] = explode(':', $trimmed, 2);
                $headers[strtolower(trim($name))] = trim($value);
            }
            return strlen($line);
        };
    }
}
