import { DailyReportQuery, dailyReportView, resolveReportRange, Rpc } from '@dzpay/contracts';
import { requestRpc } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { GatewayDeps } from '../app.ts';
import { authOf, requireApiKey } from './authenticate.ts';
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

/** A query string checked against its schema; every broken rule names its field. */
function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  throw ValidationFailure.of(
    parsed.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ field: key, message: `property ${key} should not exist` }))
        : [{ field: issue.path.map(String).join('.') || 'query', message: issue.message }],
    ),
  );
}
