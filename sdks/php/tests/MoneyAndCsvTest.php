<?php

declare(strict_types=1);

namespace Dzpay\Tests;

use Dzpay\CsvParser;
use Dzpay\Money;
use PHPUnit\Framework\TestCase;

final class MoneyAndCsvTest extends TestCase
{
    public function testDinarsBecomeCentimesExactly(): void
    {
        self::assertSame(150050, Money::toCentimes('1500.50'));
        self::assertSame(150050, Money::toCentimes('1500,5'));
        self::assertSame(150050, Money::toCentimes(1500.5));
        self::assertSame(29, Money::toCentimes(0.29));
        self::assertSame(150000, Money::toCentimes(1500));
        self::assertSame('1500.50', Money::toDinars(150050));
        self::assertSame('0.05', Money::toDinars(5));
        self::assertSame('-15.00', Money::toDinars(-1500));
        foreach (['1.005', '1 500', '1.500,00', '-1', 'abc', ''] as $bad) {
            try {
                Money::toCentimes($bad);
                self::fail("accepted '$bad'");
            } catch (\InvalidArgumentException) {
                self::addToAssertionCount(1);
            }
        }
        $this->expectException(\InvalidArgumentException::class);
        Money::toCentimes(1.005);
    }

    public function testTheTwoDecimalCheckOfAFloatDoesNotGrowWithTheAmount(): void
    {
        foreach ([5000000.004, 5000000.005, 100000000.001, 1.005, 0.001] as $bad) {
            try {
                Money::toCentimes($bad);
                self::fail('accepted ' . var_export($bad, true));
            } catch (\InvalidArgumentException $error) {
                self::assertStringContainsString('more than two decimals', $error->getMessage());
            }
        }
        self::assertSame(500000001, Money::toCentimes(5000000.01));
        self::assertSame(30, Money::toCentimes(0.1 + 0.2), 'binary rounding is not a third decimal');
        self::assertSame(3703703670, Money::toCentimes(12345678.9 * 3));
        self::assertSame(1000000000000000000, Money::toCentimes(1e16));
    }

    public function testAmountsWhoseCentimesExceedPhpIntMaxAreRefused(): void
    {
        $tooLarge = [
            1e20, 1e17, (float) PHP_INT_MAX, PHP_INT_MAX, intdiv(PHP_INT_MAX, 100) + 1,
            '99999999999999999', '92233720368547758.08', '92233720368547759', '1' . str_repeat('0', 30), str_repeat('9', 40) . ',99',
        ];
        foreach ($tooLarge as $amount) {
            try {
                Money::toCentimes($amount);
                self::fail('accepted ' . var_export($amount, true));
            } catch (\InvalidArgumentException $error) {
                self::assertStringContainsString('too large', $error->getMessage(), var_export($amount, true));
            }
        }
        self::assertSame(PHP_INT_MAX, Money::toCentimes('92233720368547758.07'));
        self::assertSame(PHP_INT_MAX - 7, Money::toCentimes(intdiv(PHP_INT_MAX, 100)));
        self::assertSame(150, Money::toCentimes('0000000000000000000000001.50'), 'leading zeros are no digits');
    }

    public function testTheCsvReaderGivesTheSameRecordsWhereverTheChunksBreak(): void
    {
        $csv = "\xEF\xBB\xBFid;note;amount\r\n"
            . "p1;\"a;b\"\"c\"\"\r\nd\";1500,50\r\n"
            . "p2;;\r\n"
            . "p3;\"\";'=SUM(A1)\r\n"
            . "p4;last;1";
        $expected = [['id', 'note', 'amount'], ['p1', "a;b\"c\"\r\nd", '1500,50'], ['p2', '', ''], ['p3', '', "'=SUM(A1)"], ['p4', 'last', '1']];
        self::assertSame($expected, self::parse([$csv]));
        for ($i = 1; $i < strlen($csv); $i++) {
            self::assertSame($expected, self::parse([substr($csv, 0, $i), substr($csv, $i)]), "split at $i");
        }
        $bytes = str_split($csv);
        self::assertSame($expected, self::parse($bytes), 'one byte at a time');
        self::assertSame([['a', 'b'], ['c', 'd']], self::parse(["a,b\nc,d\n"]), 'LF line ends, comma by default');
    }

    /**
     * @param list<string> $chunks
     * @return list<list<string>>
     */
    private static function parse(array $chunks): array
    {
        $parser = new CsvParser();
        $records = [];
        foreach ($chunks as $chunk) {
            array_push($records, ...$parser->feed($chunk));
        }
        array_push($records, ...$parser->finish());
        return $records;
    }
}
