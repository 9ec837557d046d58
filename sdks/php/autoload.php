<?php

declare(strict_types=1);

/*
 * For a shop without Composer: `require __DIR__ . '/dzpay-php/autoload.php';` loads the
 * Dzpay\ classes from src/ on first use. With Composer, use vendor/autoload.php instead.
 */
spl_autoload_register(static function (string $class): void {
    if (!str_starts_with($class, 'Dzpay\\')) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen('Dzpay\\'))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
