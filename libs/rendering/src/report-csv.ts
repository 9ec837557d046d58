import type { CsvDialect, DailyReportReply } from '@dzpay/contracts';
import { csvWriter } from './csv.ts';
import { reportDayRows } from './report-table.ts';

/**
 * The daily report as a file an accountant opens: one row per Algiers day of the range
 * (days without activity as zeros), then a `total` row; amounts in DZD.
 */
export function reportCsv(report: DailyReportReply, dialect: CsvDialect): string {
  const csv = csvWriter(dialect);
  return [
    csv.header([
      'day',
      'success_count',
      'success_dzd',
      'refund_count',
      'refund_dzd',
      'fee_dzd',
      'net_dzd',
    ]),
    ...reportDayRows(report).map(csv.row),
  ].join('');
}
