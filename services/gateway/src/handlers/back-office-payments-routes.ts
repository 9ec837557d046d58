import { Readable } from 'node:stream';
import {
  PAYMENTS_PAGE_DEFAULT,
  PAYMENTS_PAGE_MAX,
  PaymentsFilterQuery,
  PaymentsListQuery,
  Rpc,
  type MerchantScope,
} from '@dzpay/contracts';
import { requestRpc } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { GatewayDeps } from '../app.ts';
import { paymentsCsv } from '../domain/payments-csv.ts';
import { authOf, requireApiKey } from './authenticate.ts';
import { parseQuery } from './query-string.ts';

/**
 * The merchant API's back-office payments routes (issue 14): the list, its CSV export
 * and the cancel of a payment not paid yet. Every one is scoped by the key's merchant
 * and mode; payments filters and pages (payments.list, payments.cancel).
 */
export function backOfficePaymentsRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const listPage = (
    scope: MerchantScope,
    query: Omit<z.output<typeof PaymentsListQuery>, 'limit'> & { limit: number },
  ) =>
    requestRpc(
      deps.nats,
      deps.natsPrefix,
      Rpc.paymentsList,
      { ...scope, ...query },
      {
        timeoutMs: deps.serviceTimeoutMs,
      },
    );

  app.get('/api/v1/payments', routeOptions, async (request) => {
    const { scope } = authOf(request);
    const query = parseQuery(PaymentsListQuery, request.query);
    const data = await listPage(scope, { ...query, limit: query.limit ?? PAYMENTS_PAGE_DEFAULT });
    return { statusCode: 200, message: 'Payments found', data };
  });

  app.get('/api/v1/payments/export', routeOptions, async (request, reply) => {
    const { scope } = authOf(request);
    const filter = parseQuery(PaymentsFilterQuery, request.query);
    // The first page is asked before a byte is sent: a refusal is still a JSON envelope.
    const first = await listPage(scope, { ...filter, limit: PAYMENTS_PAGE_MAX });
    const stream = Readable.from(
      paymentsCsv(first, (cursor) =>
        listPage(scope, { ...filter, limit: PAYMENTS_PAGE_MAX, cursor }),
      ),
    );
    // A failure mid-export can only cut the body short (headers are out): logged here.
    stream.on('error', (err) => request.log.warn({ err }, 'payments export cut short'));
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="payments-${scope.mode}-${day}.csv"`)
      .header('cache-control', 'no-store')
      .send(stream);
  });

  app.post<{ Params: { id: string } }>(
    '/api/v1/payments/:id/cancel',
    routeOptions,
    async (request) => {
      const { scope } = authOf(request);
      const data = await requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.paymentsCancel,
        { ...scope, id: request.params.id },
        // It may wait for the card network's reverse.do.
        { timeoutMs: deps.paymentsTimeoutMs },
      );
      return { statusCode: 200, message: 'Payment cancelled', data };
    },
  );
}
