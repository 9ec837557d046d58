import type { PaymentListItem, PaymentsPage } from '@dzpay/contracts';

/**
 * The payments CSV (RFC 4180) of GET /api/v1/payments/export and the dashboard's
 * download: amounts in centimes and in DZD, dates in ISO 8601 UTC.
 */

/** Whole centimes as a DZD decimal: 150050 → "1500.50". Never through a float. */
function dzd(centimes: number): string {
  const sign = centimes < 0 ? '-' : '';
  const magnitude = Math.abs(centimes);
  return `${sign}${Math.trunc(magnitude / 100)}.${String(magnitude % 100).padStart(2, '0')}`;
}

const CSV_COLUMNS: readonly (readonly [string, (p: PaymentListItem) => string | number | null])[] =
  [
    ['id', (p) => p.id],
    ['created_at', (p) => p.createdAt],
    ['paid_at', (p) => p.paidAt],
    ['reference', (p) => p.reference],
    ['channel', (p) => p.channel],
    ['status', (p) => p.status],
    ['amount_centimes', (p) => p.amount],
    ['amount_dzd', (p) => dzd(p.amount)],
    // The merchant API gives the fee in whole DZD (the spec's unit).
    ['fee_centimes', (p) => Math.round(p.fees * 100)],
    ['fee_dzd', (p) => dzd(Math.round(p.fees * 100))],
    ['total_centimes', (p) => p.total],
    ['total_dzd', (p) => dzd(p.total)],
    ['currency', (p) => p.currency],
    ['refunded_centimes', (p) => p.refundedAmount],
    ['refunded_dzd', (p) => dzd(p.refundedAmount)],
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
): AsyncGenerator<string> {
  yield csvLine(CSV_COLUMNS.map(([name]) => name));
  let page = first;
  for (;;) {
    yield page.payments
      .map((payment) => csvLine(CSV_COLUMNS.map(([, cell]) => cell(payment))))
      .join('');
    if (!page.nextCursor) return;
    page = await nextPage(page.nextCursor);
  }
}

/**
 * One record: cells quoted when they hold a comma, a quote or a line break (quotes
 * doubled), CRLF at the end. A text cell a spreadsheet would run as a formula (it
 * starts with = + - @, a tab or a carriage return) gets a leading apostrophe.
 */
function csvLine(cells: readonly (string | number | null)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
