import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BpcErrorCode, missing, type BpcError, type Params } from '../domain/bpc-errors.ts';
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

export const ACCESS_DENIED: BpcError = {
  errorCode: BpcErrorCode.accessDenied,
  errorMessage: 'Access denied',
};

/** Compares digests in constant time, so an answer's timing says nothing about the password. */
export function credentialsChecker(expected: {
  userName: string;
  password: string;
}): (params: Params) => boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const userName = digest(expected.userName);
  const password = digest(expected.password);
  return (params) => {
    const userOk = timingSafeEqual(digest(params.userName ?? ''), userName);
    const passwordOk = timingSafeEqual(digest(params.password ?? ''), password);
    return userOk && passwordOk;
  };
}

/** The order named by orderId, or by orderNumber where the operation allows it. */
export function findOrder(
  book: OrderBook,
  params: Params,
  now: Date,
  options: { byNumber: boolean },
): { ok: true; order: Order } | { ok: false; error: BpcError } {
  const { orderId, orderNumber } = params;
  if (!orderId && !(options.byNumber && orderNumber))
    return { ok: false, error: missing('orderId') };
  const order = orderId ? book.byId(orderId, now) : book.byNumber(orderNumber!, now);
  return order
    ? { ok: true, order }
    : {
        ok: false,
        error: { errorCode: BpcErrorCode.orderNotFound, errorMessage: 'Order not found' },
      };
}
