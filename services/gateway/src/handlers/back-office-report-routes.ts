import { DailyReportQuery, dailyReportView, resolveReportRange, Rpc } from '@dzpay/contracts';
import { requestRpc } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../app.ts';
import { authOf, requireApiKey } from './authenticate.ts';
import { parseQuery } from './query-string.ts';
import { ValidationFailure } from './errors.ts';

/**
 * The merchant API's daily report (issue 14): per calendar day in Algiers (UTC+01:00),
 * successes, confirmed refunds and fees, for the key's merchant and mode.
 */
export function backOfficeReportRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const clock = deps.clock ?? (() => new Date());

  app.get('/api/v1/reports/daily', routeOptions, async (request) => {
    const { scope } = authOf(request);
    const query = parseQuery(DailyReportQuery, request.query);
    const range = resolveReportRange(query, clock());
    if (!range.ok) throw ValidationFailure.of(range.error);
    const reply = await requestRpc(
      deps.nats,
      deps.natsPrefix,
      Rpc.paymentsReportDaily,
      { ...scope, ...range.value },
      { timeoutMs: deps.serviceTimeoutMs },
    );
    return { statusCode: 200, message: 'Daily report', data: dailyReportView(reply) };
  });
}
