<?php

declare(strict_types=1);

/*
 * The endpoint dzpay posts payment outcomes to: {API_URL}/webhooks/platform (or the URL
 * set with PUT /api/v1/webhooks/settings).
 *
 *   DZPAY_WEBHOOK_SECRET=whsec_… php -S localhost:8001 examples/webhook.php
 *
 * While rotating the secret, give both, comma-separated: DZPAY_WEBHOOK_SECRET=new,old.
 * It verifies the signature on the raw body (php://input, before anything decodes it),
 * records each event id once, and answers {"success": true} within dzpay's 15 s. A real
 * shop would use a table with a unique key on the event id instead of a file.
 */

require is_file(__DIR__ . '/../vendor/autoload.php') ? __DIR__ . '/../vendor/autoload.php' : __DIR__ . '/../autoload.php';

use Dzpay\Webhook\WebhookEvent;
use Dzpay\Webhook\WebhookReceiver;

$secrets = array_values(array_filter(array_map('trim', explode(',', (string) getenv('DZPAY_WEBHOOK_SECRET')))));
$dataDir = getenv('DZPAY_EXAMPLE_DATA') ?: sys_get_temp_dir() . '/dzpay-example';
if (!is_dir($dataDir)) {
    mkdir($dataDir, 0700, true);
}

/**
 * Applies an event once: dzpay delivers at least once (a retry after a timeout, a replay),
 * always with the same event id. The id and the effect are written under one lock, as a
 * database would do them in one transaction.
 */
$onEvent = static function (WebhookEvent $event) use ($dataDir): void {
    $lock = fopen("$dataDir/lock", 'c');
    flock($lock, LOCK_EX);
    try {
        $seenFile = "$dataDir/events.json";
        $ordersFile = "$dataDir/orders.json";
        $seen = is_file($seenFile) ? json_decode((string) file_get_contents($seenFile), true) : [];
        if (isset($seen[$event->id])) {
            return; // already applied: answer success again, change nothing
        }
        $orders = is_file($ordersFile) ? json_decode((string) file_get_contents($ordersFile), true) : [];
        $reference = (string) $event->reference();
        if ($event->type === WebhookEvent::PAYMENT_SUCCESS) {
            // data.amount is in dinars here (the payments API speaks centimes).
            $orders[$reference] = ['status' => 'paid', 'paymentId' => $event->paymentId(), 'amountDzd' => $event->data['amount']];
        } elseif ($event->type === WebhookEvent::PAYMENT_FAIL && ($orders[$reference]['status'] ?? null) !== 'paid') {
            // One reference may have several attempts: a late payment.fail of one attempt
            // never undoes another attempt's success.
            $orders[$reference] = ['status' => 'unpaid', 'reason' => $event->data['failureReason'] ?? null];
        } elseif ($event->type === WebhookEvent::PAYMENT_REFUNDED) {
            $orders[$reference]['refundedDzd'] = $event->data['refundedAmount'] ?? null;
        }
        $seen[$event->id] = $event->type;
        file_put_contents($ordersFile, json_encode($orders, JSON_PRETTY_PRINT | JSON_UNESCAPED_UNICODE));
        file_put_contents($seenFile, json_encode($seen));
    } finally {
        flock($lock, LOCK_UN);
        fclose($lock);
    }
};

(new WebhookReceiver(
    $secrets,
    $onEvent,
    onTest: static function (WebhookEvent $event): void {
        error_log("dzpay test webhook {$event->id} received: the endpoint and the secret work");
    },
))->run();
