import type { PaymentListItem, PaymentsPage } from '@dzpay/contracts';
import type { Cell } from './csv.ts';
import { xlsxWorkbook } from './xlsx.ts';

/**
 * The payments export as an Excel workbook (GET /api/v1/payments/export?format=xlsx and
 * the dashboard's download): the CSV's payments with typed cells (amounts as DZD
 * numbers, times as Algiers dates), a total row under them and a Totals sheet, so an
 * accountant sums nothing by hand.
 */

/** The merchant API gives the fee in whole DZD (the spec's unit): centimes here. */
const feeCentimes = (p: PaymentListItem) => Math.round(p.fees * 100);

const COLUMNS: readonly (readonly [string, (p: PaymentListItem) => Cell])[] = [
  ['id', (p) => p.id],
  ['created_at (Algiers)', (p) => ({ at: p.createdAt })],
  ['paid_at (Algiers)', (p) => ({ at: p.paidAt })],
  ['reference', (p) => p.reference],
  ['channel', (p) => p.channel],
  ['status', (p) => p.status],
  ['amount (DZD)', (p) => ({ dzd: p.amount })],
  ['fee (DZD)', (p) => ({ dzd: feeCentimes(p) })],
  ['total (DZD)', (p) => ({ dzd: p.total })],
  ['refunded (DZD)', (p) => ({ dzd: p.refundedAmount })],
  ['currency', (p) => p.currency],
  ['failure_reason', (p) => p.failureReason],
  ['order_id', (p) => p.orderId],
  ['approval_code', (p) => p.approvalCode],
  ['metadata', (p) => (p.metadata === null ? null : JSON.stringify(p.metadata))],
];

/**
 * A workbook is built whole in memory before a byte is sent (its zip's directory comes
 * last), and a spreadsheet opens at most 1 048 576 rows: past this many payments the
 * export is refused, asking for a narrower filter or the CSV, which streams any number.
 */
export const XLSX_MAX_PAYMENTS = 100_000;

/** More payments than a workbook takes: the caller answers 400 with its message. */
export class ExportTooLarge extends Error {
  readonly maxPayments: number;
  constructor(maxPayments: number) {
    super(
      `more than ${maxPayments} payments match: narrow the dates or the filter, or export CSV, which has no limit`,
    );
    this.name = 'ExportTooLarge';
    this.maxPayments = maxPayments;
  }
}

/** Sums in centimes (integers, never through a float) of the paid payments. */
interface Totals {
  count: number;
  paidCount: number;
  amount: number;
  fee: number;
  total: number;
  refunded: number;
}

function add(totals: Totals, p: PaymentListItem): Totals {
  totals.count += 1;
  // Only what was paid counts: a failed or expired payment's amount was never charged.
  if (p.paidAt === null) return totals;
  totals.paidCount += 1;
  totals.amount += p.amount;
  totals.fee += feeCentimes(p);
  totals.total += p.total;
  totals.refunded += p.refundedAmount;
  return totals;
}

/**
 * The workbook's bytes: every page of the export (the next asked once the previous is
 * read), a `total (paid)` row under the payments, and a Totals sheet: the number of
 * payments and of paid ones, what was paid (amount, fees, total charged), refunded, and
 * net (total charged − fees − refunded, as the daily report counts it).
 */
export async function paymentsXlsx(
  first: PaymentsPage,
  nextPage: (cursor: string) => Promise<PaymentsPage>,
  maxPayments: number = XLSX_MAX_PAYMENTS,
): Promise<Buffer> {
  const rows: Cell[][] = [];
  const totals: Totals = { count: 0, paidCount: 0, amount: 0, fee: 0, total: 0, refunded: 0 };
  let page = first;
  for (;;) {
    if (rows.length + page.payments.length > maxPayments) throw new ExportTooLarge(maxPayments);
    for (const payment of page.payments) {
      rows.push(COLUMNS.map(([, cell]) => cell(payment)));
      add(totals, payment);
    }
    if (!page.nextCursor) break;
    page = await nextPage(page.nextCursor);
  }
  const totalRow: Cell[] = COLUMNS.map(([name]) => {
    if (name === 'id') return 'total (paid)';
    if (name === 'status') return totals.paidCount;
    if (name === 'amount (DZD)') return { dzd: totals.amount };
    if (name === 'fee (DZD)') return { dzd: totals.fee };
    if (name === 'total (DZD)') return { dzd: totals.total };
    if (name === 'refunded (DZD)') return { dzd: totals.refunded };
    return null;
  });
  return xlsxWorkbook([
    { name: 'Payments', header: COLUMNS.map(([name]) => name), rows: [...rows, totalRow] },
    {
      name: 'Totals',
      header: ['figure', 'value'],
      rows: [
        ['payments', totals.count],
        ['paid payments', totals.paidCount],
        ['amount paid (DZD)', { dzd: totals.amount }],
        ['fees (DZD)', { dzd: totals.fee }],
        ['total charged (DZD)', { dzd: totals.total }],
        ['refunded (DZD)', { dzd: totals.refunded }],
        ['net (DZD)', { dzd: totals.total - totals.fee - totals.refunded }],
      ],
    },
  ]);
}
