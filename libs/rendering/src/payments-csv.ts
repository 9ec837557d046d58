import type { CsvDialect, PaymentListItem, PaymentsPage } from '@dzpay/contracts';

/**
 * The payments CSV (RFC 4180) of GET /api/v1/payments/export and the dashboard's
 * download: amounts in centimes and in DZD, dates in ISO 8601. Two dialects write the
 * same columns: `standard` for programs (commas, decimal points, UTC), `spreadsheet` for
 * an accountant's French or Arabic Excel (a byte-order mark, semicolons, decimal commas,
 * Algiers times with their offset).
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

/** Whole centimes as a DZD decimal: 150050 → "1500.50" (or "1500,50"). Never through a float. */
function dzd(centimes: number, mark: Dialect['decimalMark']): string {
  const sign = centimes < 0 ? '-' : '';
  const magnitude = Math.abs(centimes);
  return `${sign}${Math.trunc(magnitude / 100)}${mark}${String(magnitude % 100).padStart(2, '0')}`;
}

type Cell = string | number | null;

const CSV_COLUMNS: readonly (readonly [string, (p: PaymentListItem, d: Dialect) => Cell])[] = [
  ['id', (p) => p.id],
  ['created_at', (p, d) => d.instant(p.createdAt)],
  ['paid_at', (p, d) => (p.paidAt === null ? null : d.instant(p.paidAt))],
  ['reference', (p) => p.reference],
  ['channel', (p) => p.channel],
  ['status', (p) => p.status],
  ['amount_centimes', (p) => p.amount],
  ['amount_dzd', (p, d) => dzd(p.amount, d.decimalMark)],
  // The merchant API gives the fee in whole DZD (the spec's unit).
  ['fee_centimes', (p) => Math.round(p.fees * 100)],
  ['fee_dzd', (p, d) => dzd(Math.round(p.fees * 100), d.decimalMark)],
  ['total_centimes', (p) => p.total],
  ['total_dzd', (p, d) => dzd(p.total, d.decimalMark)],
  ['currency', (p) => p.currency],
  ['refunded_centimes', (p) => p.refundedAmount],
  ['refunded_dzd', (p, d) => dzd(p.refundedAmount, d.decimalMark)],
  ['failure_reason', (p) => p.failureReason],
  ['order_id', (p) => p.orderId],
  ['approval_code', (p) => p.approvalCode],
  ['metadata', (p) => (p.metadata === null ? null : JSON.stringify(p.metadata))],
];

/**
 * The whole export: the header line, then every page's payments, asking for the next
 * page only when the previous one is written.
 */
export async function* paymentsCsv(
  first: PaymentsPage,
  nextPage: (cursor: string) => Promise<PaymentsPage>,
  dialect: CsvDialect = 'standard',
): AsyncGenerator<string> {
  const d = DIALECTS[dialect];
  yield (
    d.preamble +
    csvLine(
      CSV_COLUMNS.map(([name]) => name),
      d.separator,
    )
  );
  let page = first;
  for (;;) {
    yield page.payments
      .map((payment) =>
        csvLine(
          CSV_COLUMNS.map(([, cell]) => cell(payment, d)),
          d.separator,
        ),
      )
      .join('');
    if (!page.nextCursor) return;
    page = await nextPage(page.nextCursor);
  }
}

/**
 * One record: cells quoted when they hold the separator, a quote or a line break (quotes
 * doubled), CRLF at the end. A text cell a spreadsheet would run as a formula (it
 * starts with = + - @, a tab or a carriage return) gets a leading apostrophe.
 */
function csvLine(cells: readonly Cell[], separator: Dialect['separator']): string {
  return `${cells.map((cell) => csvCell(cell, separator)).join(separator)}\r\n`;
}

function csvCell(value: Cell, separator: Dialect['separator']): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  const quoted = safe.includes(separator) || /["\r\n]/.test(safe);
  return quoted ? `"${safe.replaceAll('"', '""')}"` : safe;
}
