import {
  Rpc,
  type RegisteredPayment,
  PAYMENTS_PAGE_DEFAULT,
  PAYMENTS_PAGE_MAX,
  PaymentsExportQuery,
  PaymentsListQuery,
  type MerchantScope,
} from '@dzpay/contracts';
import { requestRpc, type NatsConnection } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import type { KeyOwnerLookup } from '../../adapters/key-owner-cache.ts';
import { parseRefund, parseRegisterPayment } from '../../domain/payment-request.ts';
import { merchantTerms } from '../../domain/merchant-terms.ts';
import { authOf, requireApiKey } from '../shared/authenticate.ts';
import { scopedAsk } from '../shared/scoped-ask.ts';
import { ValidationFailure } from '../shared/errors.ts';
import { answerOf, idempotencyOf } from '../shared/answered-again.ts';
import { Readable } from 'node:stream';
import type { z } from 'zod';
import type { GatewayDeps } from '../../deps.ts';
import { ExportTooLarge, paymentsCsv, paymentsXlsx, XLSX_MEDIA_TYPE } from '@dzpay/rendering';
import { parseQuery } from '../shared/query-string.ts';

export interface PaymentsRoutesDeps {
  keys: KeyOwnerLookup;
  nats: NatsConnection;
  natsPrefix: string;
  /** Longer than the card network's own timeout: registration waits for it. */
  paymentsTimeoutMs: number;
  /** The gateway's public base URL, for checkout links. */
  publicBaseUrl: string;
}

/** The hosted-checkout payments API: register, read back, refund. */
export function paymentsRoutes(app: FastifyInstance, deps: PaymentsRoutesDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const rpcOptions = { timeoutMs: deps.paymentsTimeoutMs };
  const ask = scopedAsk(deps, deps.paymentsTimeoutMs);

  app.post('/api/v1/payments', routeOptions, async (request, reply) => {
    const auth = authOf(request);
    const parsed = parseRegisterPayment(request.body, auth.scope.mode);
    if (!parsed.ok) throw ValidationFailure.of(parsed.error);
    const idempotency = idempotencyOf(request);

    const answer = await requestRpc(
      deps.nats,
      deps.natsPrefix,
      Rpc.paymentsRegister,
      {
        merchant: merchantTerms(auth.merchant, auth.scope.mode),
        payment: parsed.value,
        ...(idempotency ? { idempotency } : {}),
      },
      rpcOptions,
    );
    const { payment, checkoutToken } = answerOf(request, reply, answer);
    const data: RegisteredPayment = {
      id: payment.id,
      reference: payment.reference,
      amount: payment.amount,
      fees: payment.fees,
      total: payment.total,
      currency: payment.currency,
      language: payment.language,
      status: 'created',
      expiresAt: payment.expiresAt,
      checkoutUrl: new URL(`/checkout/${checkoutToken}`, deps.publicBaseUrl).href,
    };
    return reply.code(201).send({ statusCode: 201, message: 'Payment registered', data });
  });

  app.get<{ Params: { id: string } }>('/api/v1/payments/:id', routeOptions, async (request) => {
    const data = await ask(request, Rpc.paymentsGet, { id: request.params.id });
    return { statusCode: 200, message: 'Payment found', data };
  });

  app.post<{ Params: { id: string } }>(
    '/api/v1/payments/:id/refund',
    routeOptions,
    async (request, reply) => {
      const { scope } = authOf(request);
      const parsed = parseRefund(request.body);
      if (!parsed.ok) throw ValidationFailure.of(parsed.error);
      const idempotency = idempotencyOf(request);
      const answer = await requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.paymentsRefund,
        {
          ...scope,
          id: request.params.id,
          ...parsed.value,
          ...(idempotency ? { idempotency } : {}),
        },
        rpcOptions,
      );
      const data = answerOf(request, reply, answer);
      // Asked of the card network, its answer not known yet: accepted, not done.
      if (data.refund.status === 'pending') {
        reply.code(202);
        return {
          statusCode: 202,
          message: 'Refund pending: the card network has not confirmed it yet',
          data,
        };
      }
      return {
        statusCode: 200,
        message: data.status === 'refunded' ? 'Payment refunded' : 'Payment partially refunded',
        data,
      };
    },
  );
}

/**
 * The merchant API's payments list, its CSV and XLSX export
 * and the cancel of a payment not paid yet. Every one is scoped by the key's merchant
 * and mode; payments filters and pages (payments.list, payments.cancel).
 */
export function paymentsListRoutes(app: FastifyInstance, deps: GatewayDeps): void {
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
    const { dialect, format, ...filter } = parseQuery(PaymentsExportQuery, request.query);
    // The first page is asked before a byte is sent: a refusal is still a JSON envelope.
    const first = await listPage(scope, { ...filter, limit: PAYMENTS_PAGE_MAX });
    const day = new Date().toISOString().slice(0, 10);
    if (format === 'xlsx') {
      // A workbook is written whole (its zip's directory comes last): every page is read
      // first, so a failure on the way is still a JSON envelope.
      const workbook = await paymentsXlsx(first, (cursor) =>
        listPage(scope, { ...filter, limit: PAYMENTS_PAGE_MAX, cursor }),
      ).catch((error: unknown) => {
        if (error instanceof ExportTooLarge) {
          throw ValidationFailure.of([{ field: 'format', message: error.message }]);
        }
        throw error;
      });
      return reply
        .header('content-type', XLSX_MEDIA_TYPE)
        .header('content-disposition', `attachment; filename="payments-${scope.mode}-${day}.xlsx"`)
        .header('cache-control', 'no-store')
        .send(workbook);
    }
    const stream = Readable.from(
      paymentsCsv(
        first,
        (cursor) => listPage(scope, { ...filter, limit: PAYMENTS_PAGE_MAX, cursor }),
        dialect,
      ),
    );
    // A failure mid-export can only cut the body short (headers are out): logged here.
    stream.on('error', (err) => request.log.warn({ err }, 'payments export cut short'));
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="payments-${scope.mode}-${day}.csv"`)
      .header('cache-control', 'no-store')
      .send(stream);
  });

  app.post<{ Params: { id: string } }>(
    '/api/v1/payments/:id/cancel',
    routeOptions,
    async (request, reply) => {
      const { scope } = authOf(request);
      const idempotency = idempotencyOf(request);
      const answer = await requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.paymentsCancel,
        { ...scope, id: request.params.id, ...(idempotency ? { idempotency } : {}) },
        // It may wait for the card network's reverse.do.
        { timeoutMs: deps.paymentsTimeoutMs },
      );
      return {
        statusCode: 200,
        message: 'Payment cancelled',
        data: answerOf(request, reply, answer),
      };
    },
  );
}
