<?php

declare(strict_types=1);

/*
 * A partner's product lookup: dzpay asks GET {API_URL}/{reference} for a product's price
 * when a payer opens /pay/{merchant}/{reference}, and again when they press pay.
 *
 *   DZPAY_API_SECRET=… php -S localhost:8002 examples/product-lookup.php
 *
 * with the merchant's API_URL set to http://<this host>:8002/dzpay. Answer within 4 s.
 */

require is_file(__DIR__ . '/../vendor/autoload.php') ? __DIR__ . '/../vendor/autoload.php' : __DIR__ . '/../autoload.php';

use Dzpay\Partner\ProductLookup;

// In a real shop: your catalogue.
$books = [
    'BOOK-42' => ['title' => 'Nedjma — Kateb Yacine', 'priceDzd' => 1500.5, 'sold' => false],
    'BOOK-7' => ['title' => 'L’Incendie — Mohammed Dib', 'priceDzd' => 1200, 'sold' => true],
];

(new ProductLookup((string) getenv('DZPAY_API_SECRET'), static function (string $reference) use ($books) {
    $book = $books[$reference] ?? null;
    if ($book === null) {
        return ProductLookup::error(ProductLookup::NOT_FOUND, 'No book has this reference');
    }
    if ($book['sold']) {
        return ProductLookup::error(ProductLookup::ALREADY_PAID, 'This book is already sold');
    }
    // Answer the reference as you store it: dzpay sells under the reference you answer.
    return ProductLookup::product(['reference' => $reference, 'amount' => $book['priceDzd'], 'label' => $book['title']]);
}))->run('/dzpay');
