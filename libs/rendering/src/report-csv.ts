import type { CsvDialect, DailyReportReply } from '@dzpay/contracts';
import { csvWriter } from './csv.ts';

/**
 * The daily report as a file an accountant opens: one row per Algiers day of the range
 * (days without activity as zeros), then a `total` row; amounts in DZD.
 */
export function reportCsv(report: DailyReportReply, dialect: CsvDialect): string {
  const csv = csvWriter(dialect);
  const row = (day: string, f: DailyReportReply['totals']) =>
    csv.row([
      day,
      f.successCount,
      { dzd: f.successAmount },
      f.refundCount,
      { dzd: f.refundAmount },
      { dzd: f.feeAmount },
      { dzd: f.net },
    ]);
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
    ...report.days.map((day) => row(day.date, day)),
    row('total', report.totals),
  ].join('');
}
