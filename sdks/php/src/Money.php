<?php

declare(strict_types=1);

namespace Dzpay;

/**
 * Dinars and centimes. The payments API, payment links and refunds take **integer
 * centimes** (1 500,50 DA is 150050); QR amounts, product lookups and webhooks speak
 * **dinars** with at most two decimals. Convert exactly, never through a float sum.
 */
final class Money
{
    /**
     * Centimes of a dinar amount: `1500`, `1500.5`, `"1500.50"` or `"1500,50"` give 150050.
     * Refuses more than two decimals, thousands separators and negative amounts.
     */
    public static function toCentimes(int|float|string $dinars): int
    {
        if (is_int($dinars)) {
            if ($dinars < 0) {
                throw new \InvalidArgumentException('dzpay: a negative amount');
            }
            return $dinars * 100;
        }
        if (is_float($dinars)) {
            if (!is_finite($dinars) || $dinars < 0) {
                throw new \InvalidArgumentException('dzpay: not an amount: ' . var_export($dinars, true));
            }
            $centimes = round($dinars * 100);
            if (abs($centimes / 100 - $dinars) > 1e-9 * max(1.0, $dinars)) {
                throw new \InvalidArgumentException("dzpay: $dinars DZD has more than two decimals");
            }
            return (int) $centimes;
        }
        $text = trim($dinars);
        if (preg_match('/^(\d+)(?:[.,](\d{1,2}))?\z/', $text, $match) !== 1) {
            throw new \InvalidArgumentException("dzpay: not a DZD amount with at most two decimals: '$dinars'");
        }
        return (int) $match[1] * 100 + (int) str_pad($match[2] ?? '', 2, '0');
    }

    /** `150050` → `"1500.50"`: exact, for display or for the DZD fields of the API. */
    public static function toDinars(int $centimes): string
    {
        $sign = $centimes < 0 ? '-' : '';
        $absolute = abs($centimes);
        return sprintf('%s%d.%02d', $sign, intdiv($absolute, 100), $absolute % 100);
    }
}
