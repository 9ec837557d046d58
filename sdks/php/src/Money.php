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
     * How far, in dinars, a float may be from its two-decimal value: room for binary
     * rounding (0.1 + 0.2), fixed whatever the amount so that 5000000.004 is refused.
     */
    private const FLOAT_TOLERANCE = 1e-6;

    /**
     * Centimes of a dinar amount: `1500`, `1500.5`, `"1500.50"` or `"1500,50"` give 150050.
     * Refuses more than two decimals, thousands separators, negative amounts and amounts
     * whose centimes do not fit in an int (PHP_INT_MAX), with InvalidArgumentException.
     */
    public static function toCentimes(int|float|string $dinars): int
    {
        if (is_int($dinars)) {
            if ($dinars < 0) {
                throw new \InvalidArgumentException('dzpay: a negative amount');
            }
            return self::centimes($dinars, 0);
        }
        if (is_float($dinars)) {
            if (!is_finite($dinars) || $dinars < 0) {
                throw new \InvalidArgumentException('dzpay: not an amount: ' . var_export($dinars, true));
            }
            $whole = floor($dinars);
            if ($whole >= (float) PHP_INT_MAX) {
                throw self::tooLarge();
            }
            $centimes = round(($dinars - $whole) * 100);
            if (abs($centimes / 100 - ($dinars - $whole)) > self::FLOAT_TOLERANCE) {
                throw new \InvalidArgumentException("dzpay: $dinars DZD has more than two decimals");
            }
            return self::centimes((int) $whole, (int) $centimes);
        }
        $text = trim($dinars);
        if (preg_match('/^(\d+)(?:[.,](\d{1,2}))?\z/', $text, $match) !== 1) {
            throw new \InvalidArgumentException("dzpay: not a DZD amount with at most two decimals: '$dinars'");
        }
        $digits = ltrim($match[1], '0');
        // 18 digits or fewer fit in an int; more are too large whatever they are.
        if (strlen($digits) > 18) {
            throw self::tooLarge();
        }
        return self::centimes((int) $digits, (int) str_pad($match[2] ?? '', 2, '0'));
    }

    /** `150050` → `"1500.50"`: exact, for display or for the DZD fields of the API. */
    public static function toDinars(int $centimes): string
    {
        $sign = $centimes < 0 ? '-' : '';
        $absolute = abs($centimes);
        return sprintf('%s%d.%02d', $sign, intdiv($absolute, 100), $absolute % 100);
    }

    /** $whole dinars and $cents (0 to 100) in centimes, refused beyond PHP_INT_MAX. */
    private static function centimes(int $whole, int $cents): int
    {
        if ($whole > intdiv(PHP_INT_MAX - $cents, 100)) {
            throw self::tooLarge();
        }
        return $whole * 100 + $cents;
    }

    private static function tooLarge(): \InvalidArgumentException
    {
        return new \InvalidArgumentException('dzpay: the amount is too large: its centimes exceed PHP_INT_MAX');
    }
}
