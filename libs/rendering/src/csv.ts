import type { CsvDialect } from '@dzpay/contracts';

/**
 * CSV (RFC 4180) in the two dialects of dzpay's exports: `standard` for programs
 * (commas, decimal points, UTC), `spreadsheet` for an accountant's French or Arabic
 * Excel (a byte-order mark, semicolons, decimal commas, Algiers times with their offset).
 */

interface Dialect {
  separator: ',' | ';';
  decimalMark: '.' | ',';
  /** An ISO 8601 timestamp (UTC, as the API gives it) as the file writes it. */
  instant: (iso: string) => string;
  /** Written before the header: the byte-order mark spreadsheets read UTF-8 by. */
  preamble: string;
}

/** Algiers is UTC+01:00 all year (no daylight saving time). */
const ALGIERS_OFFSET_MS = 3_600_000;

/** 2026-11-20T10:02:00.000Z → 2026-11-20T11:02:00+01:00: the same instant, Algiers' clock. */
export function algiersInstant(iso: string): string {
  const local = new Date(Date.parse(iso) + ALGIERS_OFFSET_MS).toISOString();
  return `${local.slice(0, 19)}+01:00`;
}

const DIALECTS: Record<CsvDialect, Dialect> = {
  standard: { separator: ',', decimalMark: '.', instant: (iso) => iso, preamble: '' },
  spreadsheet: { separator: ';', decimalMark: ',', instant: algiersInstant, preamble: '\uFEFF' },
};

/**
 * A cell: text (guarded against formulas), a whole number, nothing, an amount of
 * centimes written in DZD (`{ dzd }`), or an instant (`{ at }`, ISO 8601 UTC).
 */
export type Cell = string | number | null | { dzd: number } | { at: string | null };

/** Whole centimes as a DZD decimal: 150050 → "1500.50" (or "1500,50"). Never through a float. */
function dzd(centimes: number, mark: Dialect['decimalMark']): string {
  const sign = centimes < 0 ? '-' : '';
  const magnitude = Math.abs(centimes);
  return `${sign}${Math.trunc(magnitude / 100)}${mark}${String(magnitude % 100).padStart(2, '0')}`;
}

/** Writes records in one dialect: the header with the preamble first, then rows. */
export function csvWriter(dialect: CsvDialect) {
  const d = DIALECTS[dialect];
  const cell = (value: Cell): string => {
    if (value === null) return '';
    if (typeof value === 'number') return String(value);
    // Amounts and instants are the file's own: written as they are, never quoted.
    if (typeof value === 'object' && 'dzd' in value) return dzd(value.dzd, d.decimalMark);
    if (typeof value === 'object') return value.at === null ? '' : d.instant(value.at);
    // A text cell a spreadsheet would run as a formula (it starts with = + - @, a tab
    // or a carriage return) gets a leading apostrophe; one holding the separator, a
    // quote or a line break is quoted (quotes doubled).
    const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
    const quoted = safe.includes(d.separator) || /["\r\n]/.test(safe);
    return quoted ? `"${safe.replaceAll('"', '""')}"` : safe;
  };
  const line = (cells: readonly Cell[]) => `${cells.map(cell).join(d.separator)}\r\n`;
  return {
    header: (names: readonly string[]) => d.preamble + line(names),
    row: line,
  };
}
