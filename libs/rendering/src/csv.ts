import { hasBidiControl, replaceBidiControls, type CsvDialect } from '@dzpay/contracts';

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
 * centimes written in DZD (`{ dzd }`), an instant (`{ at }`, ISO 8601 UTC), or a JSON
 * value (`{ json }`, such as a payment's metadata).
 */
export type Cell =
  string | number | null | { dzd: number } | { at: string | null } | { json: unknown };

/** Whole centimes as a DZD decimal: 150050 → "1500.50" (or "1500,50"). Never through a float. */
function dzd(centimes: number, mark: Dialect['decimalMark']): string {
  const sign = centimes < 0 ? '-' : '';
  const magnitude = Math.abs(centimes);
  return `${sign}${Math.trunc(magnitude / 100)}${mark}${String(magnitude % 100).padStart(2, '0')}`;
}

/**
 * Where a spreadsheet may start a cell inside a text cell: at its start, and after
 * either dialect's separator, since a French Excel splits the standard file on `;` and
 * an English one the spreadsheet file on `,` (quotes do not always save a cell: one
 * that does not open its field is read as a plain character). A formula's first
 * character there (= + - @, a tab or a carriage return, past spaces and quotes, which
 * a spreadsheet skips) is what runs.
 */
const FORMULA_START = /(^|[,;])([ "]*)([=+\-@\t\r])/g;

/**
 * The text with an apostrophe before every formula's first character, wherever a split
 * on either separator could start a cell: no reading of the file evaluates anything.
 * Its bidirectional controls become U+FFFD, so a spreadsheet shows a reference in the
 * order it was written.
 */
function spreadsheetSafe(text: string): string {
  return replaceBidiControls(text).replace(FORMULA_START, "$1$2'$3");
}

/**
 * JSON text (JSON.stringify's) guarded as spreadsheetSafe guards text, but still valid
 * JSON of the same value, for the programs that read it: a formula's first character
 * wherever a split could start a cell is written as its \u escape inside a string, and
 * bidirectional controls too. Outside strings, only a number's minus sign can follow a
 * comma: a split piece `-2` is a number, not a formula, and stays.
 */
function jsonSafe(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  let cellStart = true;
  for (const char of text) {
    const guarded =
      inString && !escaped && ((cellStart && FORMULA_CHAR.test(char)) || hasBidiControl(char));
    out += guarded ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : char;
    if (escaped) escaped = false;
    else if (inString && char === '\\') escaped = true;
    else if (char === '"') inString = !inString;
    cellStart = char === ',' || char === ';' || (cellStart && (char === ' ' || char === '"'));
  }
  return out;
}

const FORMULA_CHAR = /[=+\-@]/;

/**
 * Writes records in one dialect: the header with the preamble first, then rows. A text
 * cell holding either separator, a quote or a line break is quoted (quotes doubled) in
 * both dialects, so that neither separator splits it in a reader that honours quotes.
 */
export function csvWriter(dialect: CsvDialect) {
  const d = DIALECTS[dialect];
  const cell = (value: Cell): string => {
    if (value === null) return '';
    if (typeof value === 'number') return String(value);
    // Amounts and instants are the file's own: written as they are, never quoted.
    if (typeof value === 'object' && 'dzd' in value) return dzd(value.dzd, d.decimalMark);
    if (typeof value === 'object' && 'json' in value) return json(value.json);
    if (typeof value === 'object') return value.at === null ? '' : d.instant(value.at);
    return quote(spreadsheetSafe(value));
  };
  // JSON is for programs: kept valid and equal (jsonSafe), always quoted.
  const json = (value: unknown): string =>
    `"${jsonSafe(JSON.stringify(value)).replaceAll('"', '""')}"`;
  const quote = (safe: string): string => {
    const quoted = /[,;"\r\n]/.test(safe);
    return quoted ? `"${safe.replaceAll('"', '""')}"` : safe;
  };
  const line = (cells: readonly Cell[]) => `${cells.map(cell).join(d.separator)}\r\n`;
  return {
    header: (names: readonly string[]) => d.preamble + line(names),
    row: line,
  };
}
