import type { DailyReportReply } from '@dzpay/contracts';
import type { Cell } from './csv.ts';
import { xlsxWorkbook } from './xlsx.ts';

type Figures = DailyReportReply['totals'];

const row = (day: string, f: Figures): Cell[] => [
  day,
  f.successCount,
  { dzd: f.successAmount },
  f.refundCount,
  { dzd: f.refundAmount },
  { dzd: f.feeAmount },
  { dzd: f.net },
];

/**
 * The daily report as an Excel workbook (GET /api/v1/reports/daily/export?format=xlsx
 * and the dashboard's download): the CSV's rows, a row per Algiers day of the range
 * (days without activity as zeros) then the `total` row, counts and DZD amounts as
 * numbers a spreadsheet sums.
 */
export function reportXlsx(report: DailyReportReply): Promise<Buffer> {
  return xlsxWorkbook([
    {
      name: `Report ${report.from} to ${report.to}`,
      header: [
        'day (Algiers)',
        'success_count',
        'success (DZD)',
        'refund_count',
        'refunds (DZD)',
        'fees (DZD)',
        'net (DZD)',
      ],
      rows: [...report.days.map((day) => row(day.date, day)), row('total', report.totals)],
    },
  ]);
}
