import {
  DailyReportExportQuery,
  DailyReportQuery,
  dailyReportView,
  resolveReportRange,
  Rpc,
} from '@dzpay/contracts';
import { reportCsv, reportXlsx, XLSX_MEDIA_TYPE } from '@dzpay/rendering';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../deps.ts';
import { authOf, requireApiKey } from '../shared/authenticate.ts';
import { scopedAsk } from '../shared/scoped-ask.ts';
import { parseQuery } from '../shared/query-string.ts';
import { ValidationFailure } from '../shared/errors.ts';

/**
 * The merchant API's daily report: per calendar day in Algiers (UTC+01:00),
 * successes, confirmed refunds and fees, for the key's merchant and mode; and the same
 * as a file an accountant opens (CSV in either dialect, or XLSX).
 */
export function reportRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const clock = deps.clock ?? (() => new Date());
  const ask = scopedAsk(deps, deps.serviceTimeoutMs);

  app.get('/api/v1/reports/daily', routeOptions, async (request) => {
    const query = parseQuery(DailyReportQuery, request.query);
    const range = resolveReportRange(query, clock());
    if (!range.ok) throw ValidationFailure.of(range.error);
    const reply = await ask(request, Rpc.paymentsReportDaily, range.value);
    return { statusCode: 200, message: 'Daily report', data: dailyReportView(reply) };
  });

  app.get('/api/v1/reports/daily/export', routeOptions, async (request, reply) => {
    const { format, dialect, ...query } = parseQuery(DailyReportExportQuery, request.query);
    const range = resolveReportRange(query, clock());
    if (!range.ok) throw ValidationFailure.of(range.error);
    const report = await ask(request, Rpc.paymentsReportDaily, range.value);
    const name = `report-${authOf(request).scope.mode}-${report.from}-${report.to}`;
    void reply
      .header('content-disposition', `attachment; filename="${name}.${format ?? 'csv'}"`)
      .header('cache-control', 'no-store');
    if (format === 'xlsx')
      return reply.header('content-type', XLSX_MEDIA_TYPE).send(await reportXlsx(report));
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .send(reportCsv(report, dialect ?? 'standard'));
  });
}
