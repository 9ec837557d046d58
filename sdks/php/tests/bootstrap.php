<?php

declare(strict_types=1);

// Runs the suite without `composer install`:
//   phpunit --bootstrap sdks/php/tests/bootstrap.php sdks/php/tests
// A tiny PSR-4 autoloader: Dzpay\ → src/, Dzpay\Tests\ → tests/.
spl_autoload_register(static function (string $class): void {
    $roots = [
        'Dzpay\\Tests\\' => __DIR__ . '/',
        'Dzpay\\' => dirname(__DIR__) . '/src/',
    ];
    foreach ($roots as $prefix => $directory) {
        if (str_starts_with($class, $prefix)) {
            $file = $directory . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) {
                require $file;
            }
            return;
        }
    }
});

if (!extension_loaded('curl')) {
    fwrite(STDERR, "dzpay-php tests need ext-curl (Debian: apt-get install php-curl)\n");
    exit(1);
}
