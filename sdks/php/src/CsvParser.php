<?php

declare(strict_types=1);

namespace Dzpay;

/**
 * An RFC 4180 reader fed chunk by chunk: a record is given out once its line end has
 * arrived, so a quoted cell split across chunks (or holding a line break) stays whole.
 *
 * @internal used by Download::records()
 */
final class CsvParser
{
    private string $pending = '';
    private bool $started = false;
    /** @var list<string> */
    private array $record = [];
    private string $cell = '';
    private bool $quoted = false;
    /** Inside a quoted cell. */
    private bool $inQuotes = false;

    public function __construct(private ?string $delimiter = null)
    {
    }

    /** @return list<list<string>> the records completed by this chunk */
    public function feed(string $chunk): array
    {
        $this->pending .= $chunk;
        if (!$this->started) {
            if (strlen($this->pending) < 3 && str_starts_with("\xEF\xBB\xBF", $this->pending)) {
                return [];
            }
            $this->started = true;
            if (str_starts_with($this->pending, "\xEF\xBB\xBF")) {
                $this->pending = substr($this->pending, 3);
                $this->delimiter ??= ';';
            }
            $this->delimiter ??= ',';
        }
        return $this->parse(false);
    }

    /** @return list<list<string>> the last record, when the file did not end with a line end */
    public function finish(): array
    {
        if (!$this->started) {
            $this->started = true;
            $this->delimiter ??= ',';
        }
        return $this->parse(true);
    }

    /** @return list<list<string>> */
    private function parse(bool $final): array
    {
        $records = [];
        $text = $this->pending;
        $length = strlen($text);
        $delimiter = (string) $this->delimiter;
        $i = 0;
        while ($i < $length) {
            if ($this->inQuotes) {
                $quote = strpos($text, '"', $i);
                if ($quote === false) {
                    $this->cell .= substr($text, $i);
                    $i = $length;
                    break;
                }
                if ($quote + 1 >= $length && !$final) {
                    // A quote at the chunk's end: "" or the closing one? Wait for more.
                    $this->cell .= substr($text, $i, $quote - $i);
                    $i = $quote;
                    break;
                }
                $this->cell .= substr($text, $i, $quote - $i);
                if ($quote + 1 < $length && $text[$quote + 1] === '"') {
                    $this->cell .= '"';
                    $i = $quote + 2;
                } else {
                    $this->inQuotes = false;
                    $i = $quote + 1;
                }
                continue;
            }
            $char = $text[$i];
            if ($char === '"' && $this->cell === '' && !$this->quoted) {
                $this->inQuotes = true;
                $this->quoted = true;
                $i++;
            } elseif ($char === $delimiter) {
                $this->record[] = $this->cell;
                $this->cell = '';
                $this->quoted = false;
                $i++;
            } elseif ($char === "\r" || $char === "\n") {
                if ($char === "\r" && $i + 1 >= $length && !$final) {
                    break; // CR at the chunk's end: its LF may follow
                }
                $i += ($char === "\r" && $i + 1 < $length && $text[$i + 1] === "\n") ? 2 : 1;
                $this->record[] = $this->cell;
                $records[] = $this->record;
                $this->record = [];
                $this->cell = '';
                $this->quoted = false;
            } else {
                $next = strcspn($text, "\r\n\"" . $delimiter, $i);
                $this->cell .= substr($text, $i, max(1, $next));
                $i += max(1, $next);
            }
        }
        $this->pending = substr($text, $i);
        if ($final) {
            if ($this->inQuotes) {
                $this->cell .= $this->pending;
                $this->inQuotes = false;
            }
            $this->pending = '';
            if ($this->cell !== '' || $this->record !== [] || $this->quoted) {
                $this->record[] = $this->cell;
                $records[] = $this->record;
            }
            $this->record = [];
            $this->cell = '';
            $this->quoted = false;
        }
        return $records;
    }
}
