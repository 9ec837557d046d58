import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  BpcErrorCode,
  bpcError,
  documentedMessage,
  type BpcError,
  type BpcOperation,
  type Params,
} from '../domain/bpc-errors.ts';
import type { Order } from '../domain/order.ts';
import type { OrderBook } from '../order-book.ts';

/**
 * SATIM takes its parameters form-encoded in a POST body or in the query string of a
 * GET. Only strings count, the query first and the body over it, as a form would.
 */
export function paramsOf(request: FastifyRequest): Params {
  const params: Record<string, string> = {};
  for (const source of [request.query, request.body]) {
    if (typeof source !== 'object' || source === null) continue;
    for (const [name, value] of Object.entries(source)) {
      if (typeof value === 'string') params[name] = value;
    }
  }
  return params;
}

/** Parses form bodies without a plugin: URLSearchParams is all a form needs. */
export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
}

/**
 * The order a call names. getOrderStatusExtended.do finds it by orderId or by the
 * merchant's orderNumber, and answers 1 when neither is given (BPC's newer docs); the
 * other operations take only orderId, and answer 5 without it. An unknown order is 6.
 */
export function findOrder(
  book: OrderBook,
  operation: Exclude<BpcOperation, 'register' | 'getLastOrdersForMerchants'>,
  params: Params,
  now: Date,
): { ok: true; order: Order } | { ok: false; error: BpcError } {
  const byNumber = operation === 'getOrderStatusExtended';
  const { orderId, orderNumber } = params;
  if (!orderId && !(byNumber && orderNumber)) {
    return {
      ok: false,
      error: byNumber
        ? bpcError(BpcErrorCode.duplicateOrNoOrder, documentedMessage(operation, '1'))
        : bpcError(BpcErrorCode.accessOrParameter, '[orderId] is empty'),
    };
  }
  const order = orderId ? book.byId(orderId, now) : book.byNumber(orderNumber!, now);
  return order
    ? { ok: true, order }
    : {
        ok: false,
        error: bpcError(BpcErrorCode.orderNotFound, documentedMessage(operation, '6')),
      };
}
