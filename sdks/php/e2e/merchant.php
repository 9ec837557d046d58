<?php

declare(strict_types=1);

/*
 * A merchant's back office written with the SDK, driven by system/sdk-php.system.test.ts
 * against a dzpay the test harness started. Prints one JSON object on stdout.
 *
 *   DZPAY_API_KEY=pk_test_… DZPAY_BASE_URL=http://127.0.0.1:… php merchant.php register ORDER-1
 *   DZPAY_API_KEY=pk_test_… DZPAY_BASE_URL=http://127.0.0.1:… php merchant.php settle <paymentId> <refund centimes>
 */

require __DIR__ . '/../autoload.php';

use Dzpay\DzpayClient;
use Dzpay\Http\CurlTransport;
use Dzpay\Http\HttpRequest;
use Dzpay\Http\HttpResponse;
use Dzpay\Http\StreamedResponse;
use Dzpay\Http\Transport;
use Dzpay\Money;

/** The real curl transport, counting the requests it sends (pages of a list). */
final class CountingTransport implements Transport
{
    /** @var list<string> method and URL of every request */
    public array $sent = [];

    public function __construct(private readonly Transport $inner)
    {
    }

    public function send(HttpRequest $request): HttpResponse
    {
        $this->sent[] = $request->method . ' ' . $request->url;
        return $this->inner->send($request);
    }

    public function stream(HttpRequest $request): StreamedResponse
    {
        $this->sent[] = $request->method . ' ' . $request->url;
        return $this->inner->stream($request);
    }
}

$transport = new CountingTransport(new CurlTransport());
$dzpay = new DzpayClient(
    apiKey: (string) getenv('DZPAY_API_KEY'),
    baseUrl: (string) getenv('DZPAY_BASE_URL'),
    transport: $transport,
);

$command = $argv[1] ?? '';
switch ($command) {
    case 'register':
        $order = $argv[2] ?? throw new InvalidArgumentException('register <reference>');
        $payment = [
            'amount' => Money::toCentimes('1500.00'),
            'reference' => $order,
            'successUrl' => 'https://shop.example/merci',
            'failureUrl' => 'https://shop.example/panier',
            'language' => 'fr',
            'metadata' => ['cart' => 7],
        ];
        $first = $dzpay->registerPayment($payment, idempotencyKey: $order);
        $firstReplayed = $dzpay->lastResponse()?->header('idempotent-replayed');
        // A retry after a timeout: the same key and body answer the first payment again.
        $again = $dzpay->registerPayment($payment, idempotencyKey: $order);
        $againReplayed = $dzpay->lastResponse()?->header('idempotent-replayed');
        $output = [
            'first' => $first + ['replayed' => $firstReplayed],
            'again' => $again + ['replayed' => $againReplayed],
        ];
        break;

    case 'settle':
        $id = $argv[2] ?? throw new InvalidArgumentException('settle <paymentId> <amount>');
        $amount = (int) ($argv[3] ?? throw new InvalidArgumentException('settle <paymentId> <amount>'));
        $refund = $dzpay->refundPayment($id, $amount, idempotencyKey: "refund-$id");
        $refundReplayed = $dzpay->lastResponse()?->header('idempotent-replayed') === 'true';
        // The same refund sent again (a retry after a timeout): its first answer, marked replayed.
        $again = $dzpay->refundPayment($id, $amount, idempotencyKey: "refund-$id");
        $againReplayed = $dzpay->lastResponse()?->header('idempotent-replayed') === 'true';
        $payment = $dzpay->getPayment($id);
        $before = count($transport->sent);
        $listed = [];
        foreach ($dzpay->allPayments(['limit' => 2]) as $item) {
            $listed[] = $item;
        }
        $output = [
            'refund' => $refund,
            'refundAgain' => $again,
            'refundReplayed' => [$refundReplayed, $againReplayed],
            'payment' => $payment,
            'listed' => $listed,
            'listRequests' => array_slice($transport->sent, $before),
        ];
        break;

    default:
        fwrite(STDERR, "usage: merchant.php register <reference> | settle <paymentId> <amount>\n");
        exit(2);
}

echo json_encode($output, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES), "\n";
