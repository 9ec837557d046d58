import type { CsvDialect, StatementReply } from '@dzpay/contracts';
import { csvWriter } from './csv.ts';
import { statementDayRows } from './statement-table.ts';

/**
 * A month's statement as one CSV table an accountant opens: an `opening` row (the
 * balance when the month began), one row per Algiers day of the month (quiet days as
 * zeros, the balance carried), then a `total` row closing on the month's final balance.
 * Amounts in DZD; the payouts' references are in the XLSX and the PDF (and
 * GET /api/v1/payouts).
 */
export function statementCsv(statement: StatementReply, dialect: CsvDialect): string {
  const csv = csvWriter(dialect);
  return [
    csv.header([
      'day',
      'payment_count',
      'captured_dzd',
      'fees_dzd',
      'refund_count',
      'refunds_dzd',
      'net_dzd',
      'payout_count',
      'paid_out_dzd',
      'balance_dzd',
    ]),
    ...statementDayRows(statement, { opening: 'opening', total: 'total' }).map(csv.row),
  ].join('');
}
