<?php

declare(strict_types=1);

/*
 * A partner's webhook endpoint written with the SDK, for system/sdk-php.system.test.ts:
 *
 *   DZPAY_WEBHOOK_SECRET=whsec_… DZPAY_E2E_EVENTS=/tmp/events.jsonl \
 *     php -S 127.0.0.1:8001 webhook.php
 *
 * dzpay posts to {API_URL}/webhooks/platform, API_URL being http://127.0.0.1:8001/dzpay.
 * Each verified event is appended to DZPAY_E2E_EVENTS as one JSON line, with the raw body
 * and headers it came with (so the test can send a tampered copy). GET /health answers
 * once the server is up.
 */

require __DIR__ . '/../autoload.php';

use Dzpay\Webhook\Headers;
use Dzpay\Webhook\WebhookEvent;
use Dzpay\Webhook\WebhookReceiver;

$path = parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH);
if ($path === '/health') {
    header('Content-Type: text/plain');
    echo "ok\n";
    return;
}
if ($path !== '/dzpay/webhooks/platform') {
    http_response_code(404);
    return;
}

$rawBody = (string) file_get_contents('php://input');   // the bytes as received
$headers = Headers::fromGlobals();
$receiver = new WebhookReceiver(
    (string) getenv('DZPAY_WEBHOOK_SECRET'),
    static function (WebhookEvent $event) use ($rawBody, $headers): void {
        $line = json_encode([
            'id' => $event->id,
            'type' => $event->type,
            'createdAt' => $event->createdAt,
            'paymentId' => $event->paymentId(),
            'reference' => $event->reference(),
            'data' => $event->data,
            'rawBody' => $rawBody,
            'headers' => $headers,
        ], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
        file_put_contents((string) getenv('DZPAY_E2E_EVENTS'), $line . "\n", FILE_APPEND | LOCK_EX);
    },
);
$receiver->handle($rawBody, $headers)->send();
