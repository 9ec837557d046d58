<?php

declare(strict_types=1);

namespace Dzpay;

use Dzpay\Http\StreamedResponse;

/**
 * A file dzpay is sending (a CSV export, a workbook, a statement, a QR image), read as it
 * arrives: the request was answered 2xx, and the body is still on the wire. Read it once,
 * by one of chunks(), rows(), saveTo() or contents().
 *
 * ```php
 * $export = $dzpay->exportPayments(['createdFrom' => '2026-11-01', 'createdTo' => '2026-12-01']);
 * foreach ($export->rows() as $row) {      // one payment at a time, whatever the size
 *     echo $row['reference'], ' ', $row['amount_dzd'], "\n";
 * }
 * ```
 */
final class Download
{
    public function __construct(private readonly StreamedResponse $response)
    {
    }

    /** `text/csv; charset=utf-8`, `image/png`, … */
    public function contentType(): ?string
    {
        return $this->response->header('content-type');
    }

    /** The file name of Content-Disposition (`payments-test-2026-11-21.csv`), if any. */
    public function filename(): ?string
    {
        $disposition = $this->response->header('content-disposition');
        if ($disposition === null) {
            return null;
        }
        if (preg_match("/filename\\*=UTF-8''([^;]+)/i", $disposition, $match) === 1) {
            return rawurldecode(trim($match[1]));
        }
        if (preg_match('/filename="([^"]*)"/i', $disposition, $match) === 1
            || preg_match('/filename=([^;]+)/i', $disposition, $match) === 1) {
            return trim($match[1]);
        }
        return null;
    }

    /** The ETag (QR images: cache them by it). */
    public function etag(): ?string
    {
        return $this->response->header('etag');
    }

    public function header(string $name): ?string
    {
        return $this->response->header($name);
    }

    /**
     * The bytes as they arrive.
     *
     * @return \Generator<int, string>
     */
    public function chunks(): \Generator
    {
        return $this->response->chunks();
    }

    /** The whole file as a string (small files: images, statements). */
    public function contents(): string
    {
        return $this->response->readAll();
    }

    /**
     * Writes the file to a path or an open stream (`fopen('php://output', 'wb')` to pass
     * it on to your own user) chunk by chunk; returns the number of bytes written.
     *
     * @param string|resource $destination
     */
    public function saveTo($destination): int
    {
        $stream = is_string($destination) ? fopen($destination, 'wb') : $destination;
        if (!is_resource($stream)) {
            throw new \InvalidArgumentException('dzpay: cannot open ' . (is_string($destination) ? $destination : 'the destination') . ' for writing');
        }
        $written = 0;
        try {
            foreach ($this->chunks() as $chunk) {
                $length = fwrite($stream, $chunk);
                if ($length === false || $length !== strlen($chunk)) {
                    throw new \RuntimeException('dzpay: writing the download failed');
                }
                $written += $length;
            }
        } finally {
            if (is_string($destination)) {
                fclose($stream);
            }
        }
        return $written;
    }

    /**
     * The CSV's records as they arrive, each keyed by the header row's names (RFC 4180:
     * quoted cells may hold commas, quotes and line breaks). The `spreadsheet` dialect
     * (a byte-order mark, `;`) is recognised by its byte-order mark, which is dropped.
     * Cells are strings as written: amounts of the spreadsheet dialect have decimal
     * commas, and a text cell a spreadsheet would run as a formula starts with `'`.
     *
     * @param string|null $delimiter `,` or `;`; null: `;` after a byte-order mark, else `,`
     * @return \Generator<int, array<string, string>>
     */
    public function rows(?string $delimiter = null): \Generator
    {
        $header = null;
        foreach ($this->records($delimiter) as $record) {
            if ($header === null) {
                $header = $record;
                continue;
            }
            if (count($record) === 1 && $record[0] === '') {
                continue;
            }
            $row = [];
            foreach ($header as $index => $name) {
                $row[$name] = $record[$index] ?? '';
            }
            yield $row;
        }
    }

    /**
     * The CSV's records as lists of cells, the header row first.
     *
     * @return \Generator<int, list<string>>
     */
    public function records(?string $delimiter = null): \Generator
    {
        $parser = new CsvParser($delimiter);
        foreach ($this->chunks() as $chunk) {
            yield from $parser->feed($chunk);
        }
        yield from $parser->finish();
    }
}
