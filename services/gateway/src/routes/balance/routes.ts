import {
  BalanceQuery,
  balanceView,
  payoutItemView,
  PAYOUTS_PAGE_DEFAULT,
  PayoutsQuery,
  resolveReportRange,
  Rpc,
  StatementQuery,
  statementMonthProblem,
} from '@dzpay/contracts';
import {
  STATEMENT_MEDIA_TYPES,
  statementCsv,
  statementFileName,
  statementPdf,
  statementXlsx,
} from '@dzpay/rendering';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../deps.ts';
import { authOf, requireApiKey } from '../shared/authenticate.ts';
import { ValidationFailure } from '../shared/errors.ts';
import { parseQuery } from '../shared/query-string.ts';
import { scopedAsk } from '../shared/scoped-ask.ts';

/**
 * The merchant API's balance and payouts (/api/v1/balance, /api/v1/payouts) and its
 * monthly statements (/api/v1/statements/{YYYY-MM}), for the key's merchant and mode:
 * payments sums (payments.balance.get, payments.payouts.list, payments.statement.get),
 * the gateway converts to DZD and draws the files (docs/balance.md).
 */
export function balanceRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const clock = deps.clock ?? (() => new Date());
  const ask = scopedAsk(deps, deps.serviceTimeoutMs);

  app.get('/api/v1/balance', routeOptions, async (request) => {
    const query = parseQuery(BalanceQuery, request.query);
    const range = resolveReportRange(query, clock());
    if (!range.ok) throw ValidationFailure.of(range.error);
    const reply = await ask(request, Rpc.balanceGet, range.value);
    return { statusCode: 200, message: 'Balance', data: balanceView(reply) };
  });

  app.get('/api/v1/payouts', routeOptions, async (request) => {
    const { limit, cursor } = parseQuery(PayoutsQuery, request.query);
    const page = await ask(request, Rpc.payoutsList, {
      limit: limit ?? PAYOUTS_PAGE_DEFAULT,
      ...(cursor ? { cursor } : {}),
    });
    return {
      statusCode: 200,
      message: 'Payouts found',
      data: { payouts: page.payouts.map(payoutItemView), nextCursor: page.nextCursor },
    };
  });

  app.get<{ Params: { month: string } }>(
    '/api/v1/statements/:month',
    routeOptions,
    async (request, reply) => {
      const { month } = request.params;
      const problem = statementMonthProblem(month, clock());
      if (problem) throw ValidationFailure.of([{ field: 'month', message: problem }]);
      const query = parseQuery(StatementQuery, request.query);
      const format = query.format ?? 'pdf';
      const statement = await ask(request, Rpc.statementGet, { month });
      const { scope, merchant } = authOf(request);
      const body =
        format === 'csv'
          ? statementCsv(statement, query.dialect ?? 'spreadsheet')
          : format === 'xlsx'
            ? await statementXlsx(statement, query.language ?? 'fr')
            : await statementPdf(
                statement,
                { merchantId: merchant.id, merchantName: merchant.name, mode: scope.mode },
                query.language ?? 'fr',
              );
      return reply
        .header('content-type', STATEMENT_MEDIA_TYPES[format])
        .header(
          'content-disposition',
          `attachment; filename="${statementFileName(month, scope.mode, format)}"`,
        )
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
}
