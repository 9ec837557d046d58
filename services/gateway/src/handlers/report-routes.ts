import { DailyReportQuery, dailyReportView, resolveReportRange, Rpc } from '@dzpay/contracts';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps.ts';
import { requireApiKey } from './authenticate.ts';
import { scopedAsk } from './scoped-ask.ts';
import { parseQuery } from './query-string.ts';
import { ValidationFailure } from './errors.ts';

/**
 * The merchant API's daily report: per calendar day in Algiers (UTC+01:00),
 * successes, confirmed refunds and fees, for the key's merchant and mode.
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
}
