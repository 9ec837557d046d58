<?php

declare(strict_types=1);

namespace Dzpay\Tests;

use Dzpay\DzpayClient;
use Dzpay\ErrorCode;
use PHPUnit\Framework\TestCase;

/**
 * Inside the dzpay repository: every operation of the merchant API the gateway's OpenAPI
 * document describes (services/gateway/src/openapi, the ones behind an API key) is an
 * operation of this client, with the same method and path, and a public method named
 * after its operationId; every errorCode of libs/contracts is a constant of ErrorCode.
 * Skipped when the SDK is used outside the repository.
 */
final class CoverageTest extends TestCase
{
    private const REPOSITORY = __DIR__ . '/../../..';

    public function testEveryApiKeyOperationOfTheOpenApiDocumentIsCovered(): void
    {
        $files = glob(self::REPOSITORY . '/services/gateway/src/openapi/*-operations.ts') ?: [];
        if ($files === []) {
            self::markTestSkipped('not inside the dzpay repository');
        }
        $operations = [];
        foreach ($files as $file) {
            $source = (string) file_get_contents($file);
            foreach (preg_split("/(?=\\bmethod: ')/", $source) ?: [] as $block) {
                if (preg_match("/^method: '(\\w+)',\\s*path: '([^']+)',\\s*operationId: '(\\w+)'/", $block, $match) !== 1) {
                    continue;
                }
                if (preg_match('/\bapiKey: true\b/', $block) === 1) {
                    $operations[$match[3]] = [strtoupper($match[1]), $match[2]];
                }
            }
        }
        self::assertGreaterThan(25, count($operations), 'the operations files were read');
        foreach ($operations as $operationId => [$method, $path]) {
            self::assertArrayHasKey($operationId, DzpayClient::OPERATIONS, "the PHP SDK does not cover $operationId ($method $path)");
            self::assertSame([$method, $path], array_slice(DzpayClient::OPERATIONS[$operationId], 0, 2), $operationId);
            self::assertTrue(method_exists(DzpayClient::class, $operationId), "DzpayClient::$operationId()");
        }
        self::assertSame([], array_values(array_diff(array_keys(DzpayClient::OPERATIONS), array_keys($operations))), 'operations the document no longer has');
    }

    public function testEveryErrorCodeOfTheCatalogIsAConstant(): void
    {
        $file = self::REPOSITORY . '/libs/contracts/src/errors.ts';
        if (!is_file($file)) {
            self::markTestSkipped('not inside the dzpay repository');
        }
        $source = (string) file_get_contents($file);
        $catalog = substr($source, (int) strpos($source, 'export const ErrorCatalog'));
        $catalog = substr($catalog, 0, (int) strpos($catalog, '} as const'));
        preg_match_all('/^\s+([A-Z][A-Z0-9_]*\d{3}_?[A-Z0-9_]*|VALIDATION400): \d{3}/m', $catalog, $matches);
        self::assertNotEmpty($matches[1]);
        $constants = (new \ReflectionClass(ErrorCode::class))->getConstants();
        foreach ($matches[1] as $code) {
            self::assertSame($code, $constants[$code] ?? null, "ErrorCode::$code");
        }
    }
}
