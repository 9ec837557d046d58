import type { DailyReportReply } from '@dzpay/contracts';
import type { Cell } from './csv.ts';

/**
 * The daily report's table, as the CSV and the XLSX both lay it out: one row per Algiers
 * day of the range (days without activity as zeros), then the `total` row. Columns: day,
 * success count, success amount, refund count, refunds, fees, net; amounts in DZD.
 */
export function reportDayRows(report: DailyReportReply): Cell[][] {
  const row = (day: string, f: DailyReportReply['totals']): Cell[] => [
    day,
    f.successCount,
    { dzd: f.successAmount },
    f.refundCount,
    { dzd: f.refundAmount },
    { dzd: f.feeAmount },
    { dzd: f.net },
  ];
  return [...report.days.map((day) => row(day.date, day)), row('total', report.totals)];
}
