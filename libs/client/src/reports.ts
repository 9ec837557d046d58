import {
  DailyReportResponse,
  type CsvDialect,
  type DailyReportQuery,
  type DailyReportView,
} from '@dzpay/contracts';
import type { ClientTransport } from './transport.ts';

/** A merchant's reports: what was paid, refunded and charged, day by day. */
export function reportsMethods(transport: ClientTransport) {
  const { call, query, raw } = transport;
  return {
    /**
     * GET /api/v1/reports/daily: per Algiers day (UTC+01:00) from `from` to `to`, both
     * included (default: the last 30 days), amounts in DZD and in centimes.
     */
    async dailyReport(range: DailyReportQuery = {}): Promise<DailyReportView> {
      const answer = await call(
        'GET',
        `/api/v1/reports/daily${query({ from: range.from, to: range.to })}`,
        {
          status: 200,
          schema: DailyReportResponse,
        },
      );
      return answer.data;
    },
    /**
     * GET /api/v1/reports/daily/export: the same report as CSV text, a row per Algiers day
     * and a total row; `dialect: 'spreadsheet'` for an accountant's Excel.
     */
    async exportDailyReport(
      range: DailyReportQuery & { dialect?: CsvDialect } = {},
    ): Promise<string> {
      const fields = { from: range.from, to: range.to, format: 'csv', dialect: range.dialect };
      const response = await raw('GET', `/api/v1/reports/daily/export${query(fields)}`);
      return response.text();
    },
    /** GET /api/v1/reports/daily/export?format=xlsx: the report as an Excel workbook's bytes. */
    async exportDailyReportXlsx(range: DailyReportQuery = {}): Promise<Uint8Array> {
      const fields = { from: range.from, to: range.to, format: 'xlsx' };
      const response = await raw('GET', `/api/v1/reports/daily/export${query(fields)}`);
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}
