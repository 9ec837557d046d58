import { DailyReportResponse, type DailyReportQuery, type DailyReportView } from '@dzpay/contracts';
import type { ClientTransport } from './transport.ts';

/** A merchant's reports: what was paid, refunded and charged, day by day. */
export function reportsMethods(transport: ClientTransport) {
  const { call, query } = transport;
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
  };
}
