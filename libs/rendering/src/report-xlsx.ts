import type { DailyReportReply } from '@dzpay/contracts';
import { reportDayRows } from './report-table.ts';
import { xlsxWorkbook } from './xlsx.ts';

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
      rows: reportDayRows(report),
    },
  ]);
}
