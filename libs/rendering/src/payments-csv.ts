import type { CsvDialect, PaymentListItem, PaymentsPage } from '@dzpay/contracts';
import { csvWriter, type Cell } from './csv.ts';

/**
 * The payments CSV of GET /api/v1/payments/export and the dashboard's download:
 * amounts in centimes and in DZD, dates in ISO 8601, in either dialect (csv.ts).
 */

const CSV_COLUMNS: readonly (readonly [string, (p: PaymentListItem) => Cell])[] = [
  ['id', (p) => p.id],
  ['created_at', (p) => ({ at: p.createdAt })],
  ['paid_at', (p) => ({ at: p.paidAt })],
  ['reference', (p) => p.reference],
  ['channel', (p) => p.channel],
  ['status', (p) => p.status],
  ['amount_centimes', (p) => p.amount],
  ['amount_dzd', (p) => ({ dzd: p.amount })],
  // The merchant API gives the fee in whole DZD (the spec's unit).
  ['fee_centimes', (p) => Math.round(p.fees * 100)],
  ['fee_dzd', (p) => ({ dzd: Math.round(p.fees * 100) })],
  ['total_centimes', (p) => p.total],
  ['total_dzd', (p) => ({ dzd: p.total })],
  ['currency', (p) => p.currency],
  ['refunded_centimes', (p) => p.refundedAmount],
  ['refunded_dzd', (p) => ({ dzd: p.refundedAmount })],
  ['failure_reason', (p) => p.failureReason],
  ['order_id', (p) => p.orderId],
  ['approval_code', (p) => p.approvalCode],
  ['metadata', (p) => (p.metadata === null ? null : { json: p.metadata })],
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
  const csv = csvWriter(dialect);
  yield csv.header(CSV_COLUMNS.map(([name]) => name));
  let page = first;
  for (;;) {
    yield page.payments
      .map((payment) => csv.row(CSV_COLUMNS.map(([, cell]) => cell(payment))))
      .join('');
    if (!page.nextCursor) return;
    page = await nextPage(page.nextCursor);
  }
}
