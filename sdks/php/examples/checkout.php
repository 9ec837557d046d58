<?php

declare(strict_types=1);

/*
 * A shop page with a "pay by card" button: the button registers a dzpay payment and
 * sends the payer to dzpay's hosted checkout; dzpay sends them back here afterwards.
 *
 *   DZPAY_API_KEY=pk_test_… DZPAY_BASE_URL=http://localhost:8080 \
 *     php -S localhost:8000 examples/checkout.php
 *
 * then open http://localhost:8000. With a pk_test_ key the payment goes to dzpay's card
 * sandbox. The order is marked paid by the webhook (examples/webhook.php), never by the
 * payer's return: anyone can open a return URL.
 */

require is_file(__DIR__ . '/../vendor/autoload.php') ? __DIR__ . '/../vendor/autoload.php' : __DIR__ . '/../autoload.php';

use Dzpay\DzpayClient;
use Dzpay\Exception\ApiException;
use Dzpay\Exception\DzpayException;
use Dzpay\Money;

$dzpay = new DzpayClient(
    apiKey: (string) getenv('DZPAY_API_KEY'),
    baseUrl: getenv('DZPAY_BASE_URL') ?: 'http://localhost:8080',
);

// The cart: in a real shop, from your database.
$product = ['name' => 'Nedjma — Kateb Yacine', 'priceDzd' => '1500.50'];
$shopUrl = (isset($_SERVER['HTTPS']) && $_SERVER['HTTPS'] !== 'off' ? 'https' : 'http') . '://' . ($_SERVER['HTTP_HOST'] ?? 'localhost:8000');
$h = static fn (string $text): string => htmlspecialchars($text, ENT_QUOTES | ENT_SUBSTITUTE, 'UTF-8');

if (($_SERVER['REQUEST_METHOD'] ?? 'GET') === 'POST') {
    // The order number was made when the page was shown: pressing twice, or the browser
    // sending the form again, replays the same registration (same Idempotency-Key)
    // instead of making a second payment.
    $order = (string) ($_POST['order'] ?? '');
    if (preg_match('/^ORDER-[0-9A-F]{12}$/', $order) !== 1) {
        http_response_code(400);
        exit('Bad order');
    }
    try {
        $payment = $dzpay->registerPayment([
            'amount' => Money::toCentimes($product['priceDzd']), // 150050 centimes
            'currency' => 'DZD',
            'reference' => $order,
            'successUrl' => "$shopUrl/?return=success",
            'failureUrl' => "$shopUrl/?return=failure",
            'language' => 'fr',
            'metadata' => ['product' => $product['name']],
        ], idempotencyKey: $order);
    } catch (ApiException $error) {
        // Branch on errorCode; show your own words to the payer, log the rest.
        error_log("dzpay: {$error->getMessage()} " . json_encode($error->details));
        http_response_code(502);
        exit('Le paiement par carte est indisponible pour le moment (' . $h((string) $error->errorCode) . '). Réessayez dans un instant.');
    } catch (DzpayException $error) {
        error_log('dzpay: ' . $error->getMessage());
        http_response_code(502);
        exit('Le paiement par carte est indisponible pour le moment. Réessayez dans un instant.');
    }
    // The checkout link is shown only in this answer: send the payer there now.
    header('Location: ' . $payment['checkoutUrl'], true, 303);
    exit;
}

$message = null;
if (isset($_GET['return'], $_GET['reference']) && is_string($_GET['reference'])) {
    // dzpay appends ?reference=<your order> to successUrl and failureUrl. Show what
    // dzpay says about it; the webhook is what marks the order paid.
    $status = 'inconnu';
    try {
        foreach ($dzpay->listPayments(['reference' => $_GET['reference'], 'limit' => 1])['payments'] as $payment) {
            $status = $payment['status'];
        }
    } catch (DzpayException $error) {
        error_log('dzpay: ' . $error->getMessage());
    }
    $message = $status === 'success'
        ? 'Merci ! Le paiement de la commande ' . $_GET['reference'] . ' est confirmé.'
        : 'La commande ' . $_GET['reference'] . ' n’est pas payée (' . $status . '). Vous pouvez réessayer.';
}

$order = 'ORDER-' . strtoupper(bin2hex(random_bytes(6)));
?><!doctype html>
<html lang="fr">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Librairie — paiement</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; }
    .card { border: 1px solid #ddd; border-radius: .75rem; padding: 1.5rem; }
    button { font-size: 1.1rem; padding: .8rem 1.2rem; border: 0; border-radius: .5rem; background: #006233; color: #fff; width: 100%; cursor: pointer; }
    .note { color: #555; font-size: .9rem; }
  </style>
</head>
<body>
  <?php if ($message !== null): ?>
    <p role="status"><?= $h($message) ?></p>
  <?php endif ?>
  <div class="card">
    <h1><?= $h($product['name']) ?></h1>
    <p><strong><?= $h(str_replace('.', ',', $product['priceDzd'])) ?> DA</strong></p>
    <form method="post">
      <input type="hidden" name="order" value="<?= $h($order) ?>">
      <button type="submit">Payer par carte CIB / Edahabia</button>
    </form>
    <p class="note">Vous serez redirigé vers la page de paiement sécurisée de dzpay (15 minutes pour payer).</p>
  </div>
</body>
</html>
