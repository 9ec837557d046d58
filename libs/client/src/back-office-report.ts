import { DailyReportResponse, type DailyReportQuery, type DailyReportView } from '@dzpay/contracts';
import type { ClientTransport } from './transport.ts';

/** The back office's daily report method (issue 14). */
export function backOfficeReportMethods(transport: ClientTransport) {
  const { call } = transport;
  return {
    /**
     * GET /api/v1/reports/daily: per Algiers day (UTC+01:00) from `from` to `to`, both
     * included (default: the last 30 days), amounts in DZD and in centimes.
     */
    async dailyReport(query: DailyReportQuery = {}): Promise<DailyReportView> {
      const params = new URLSearchParams();
      if (query.from !== undefined) params.set('from', query.from);
      if (query.to !== undefined) params.set('to', query.to);
      const text = params.toString();
      const answer = await call('GET', `/api/v1/reports/daily${text === '' ? '' : `?${text}`}`, {
        status: 200,
        schema: DailyReportResponse,
      });
      return answer.data;
    },
  };
}
