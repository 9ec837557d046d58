<?php

declare(strict_types=1);

namespace Dzpay\Http;

use Dzpay\Exception\ConnectionException;

/**
 * How the client reaches dzpay. CurlTransport is the default; give your own to the
 * client for a proxy, logging, or tests.
 */
interface Transport
{
    /**
     * Sends a request and reads the whole response.
     *
     * @throws ConnectionException when no response came (refused, timed out, TLS error)
     */
    public function send(HttpRequest $request): HttpResponse;

    /**
     * Sends a request and returns as soon as the status and headers are in; the body
     * is read from the returned response as it arrives.
     *
     * @throws ConnectionException when no response came
     */
    public function stream(HttpRequest $request): StreamedResponse;
}
