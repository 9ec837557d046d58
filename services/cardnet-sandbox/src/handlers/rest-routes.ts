import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import {
  BpcErrorCode,
  invalid,
  missing,
  parseAmount,
  type BpcError,
  type Params,
} from '../domain/bpc-errors.ts';
import { refundOrder, registerOrder, reverseOrder, type Order } from '../domain/order.ts';
import { parseLanguage, parseRegisterRequest } from '../domain/register-request.ts';
import { UNAVAILABLE_AMOUNT } from '../domain/test-cards.ts';
import type { OrderBook } from '../order-book.ts';
import { ACCESS_DENIED, findOrder, paramsOf } from './rest-params.ts';
import { statusBody } from './status-body.ts';
import { answerUnavailable } from './unavailable.ts';

export interface RestDeps {
  book: OrderBook;
  clock: () => Date;
  logger: FastifyBaseLogger;
  authorized: (params: Params) => boolean;
  newOrderId: () => string;
  /** The base URL put in formUrl; known only once the server listens. */
  publicUrl: () => string;
  confirmDelayMs: number;
  /** Aborted when the sandbox stops, so a hanging confirmation does not hold shutdown. */
  stopping: AbortSignal;
}

type Handler = (params: Params, reply: FastifyReply) => Promise<object> | object;

const SUCCESS = { errorCode: BpcErrorCode.success, errorMessage: 'Success' };

/** The BPC-style REST API under /payment/rest/: every call answers JSON with an errorCode. */
export function restRoutes(app: FastifyInstance, deps: RestDeps): void {
  const route = (operation: string, handler: Handler) =>
    app.route({
      method: ['GET', 'POST'],
      url: `/payment/rest/${operation}.do`,
      handler: async (request, reply) => handler(paramsOf(request), reply),
    });

  route('register', (params, reply) => {
    // Before anything else, credentials included: the network is "down".
    if (params.amount === String(UNAVAILABLE_AMOUNT)) {
      return answerUnavailable(reply);
    }
    if (!deps.authorized(params)) return ACCESS_DENIED;
    const request = parseRegisterRequest(params);
    if (!request.ok) return request.error;
    const order = registerOrder(request.value, deps.newOrderId(), deps.clock());
    if (!deps.book.add(order)) {
      return {
        errorCode: BpcErrorCode.duplicateOrderNumber,
        errorMessage: 'Order with this number was already processed',
      };
    }
    deps.logger.info({ orderId: order.orderId, amount: order.amount }, 'order registered');
    // Kept as a string join so a public URL with a path prefix (behind a proxy) works.
    const base = deps.publicUrl().replace(/\/+$/, '');
    const formUrl = `${base}/payment/merchants/form?mdOrder=${encodeURIComponent(order.orderId)}`;
    return { orderId: order.orderId, formUrl, errorCode: BpcErrorCode.success };
  });

  route('getOrderStatusExtended', (params) =>
    withOrder(params, { byNumber: true }, (order, language) => statusBody(order, language)),
  );

  // Acknowledges the outcome, as often as asked. The "timeout at confirmation" card's
  // order is deposited already; only the answer is late.
  route('confirmOrder', (params) =>
    withOrder(params, { byNumber: false }, async (order, language) => {
      if (params.amount !== undefined && parseAmount(params.amount) !== order.amount) {
        return notAllowed('Amount does not match the order');
      }
      if (order.hangsAtConfirm && deps.confirmDelayMs > 0) {
        await sleep(deps.confirmDelayMs, undefined, { signal: deps.stopping }).catch(() => {});
      }
      const latest = deps.book.byId(order.orderId, deps.clock()) ?? order;
      return statusBody(latest, language);
    }),
  );

  route('refund', (params) =>
    withOrder(params, { byNumber: false }, (order) => {
      if (!params.amount) return missing('amount');
      const amount = parseAmount(params.amount);
      if (amount === null) return invalid('amount', 'a positive integer in centimes');
      const refunded = refundOrder(order, amount, deps.clock());
      if (!refunded.ok) return notAllowed(refunded.error);
      deps.book.save(refunded.value);
      deps.logger.info({ orderId: order.orderId, amount }, 'order refunded');
      return SUCCESS;
    }),
  );

  route('reverse', (params) =>
    withOrder(params, { byNumber: false }, (order) => {
      const reversed = reverseOrder(order, deps.clock());
      if (!reversed.ok) return notAllowed(reversed.error);
      deps.book.save(reversed.value);
      deps.logger.info({ orderId: order.orderId }, 'order reversed');
      return SUCCESS;
    }),
  );

  /** Credentials, the order, and the answer language (the order's own by default). */
  function withOrder(
    params: Params,
    options: { byNumber: boolean },
    use: (order: Order, language: Order['language']) => Promise<object> | object,
  ): Promise<object> | object {
    if (!deps.authorized(params)) return ACCESS_DENIED;
    const found = findOrder(deps.book, params, deps.clock(), options);
    if (!found.ok) return found.error;
    const language = params.language ? parseLanguage(params.language) : found.order.language;
    if (!language) return invalid('language', 'AR, FR or EN');
    return use(found.order, language);
  }
}

function notAllowed(errorMessage: string): BpcError {
  return { errorCode: BpcErrorCode.notAllowed, errorMessage };
}
