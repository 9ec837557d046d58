import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import {
  BpcErrorCode,
  bpcError,
  documentedMessage,
  invalid,
  parseAmount,
  type BpcError,
  type BpcOperation,
  type Params,
} from '../domain/bpc-errors.ts';
import { confirmOrder } from '../domain/confirmation.ts';
import {
  refundOrder,
  registerOrder,
  reverseOrder,
  type Order,
  type RefundReceipt,
} from '../domain/order.ts';
import { parseLanguage, parseRegisterRequest } from '../domain/register-request.ts';
import { UNAVAILABLE_AMOUNT } from '../domain/test-cards.ts';
import type { CredentialsBook } from '../credentials.ts';
import type { OrderBook } from '../order-book.ts';
import { confirmBody, errorBody } from './answer-bodies.ts';
import { lastOrdersHandler } from './last-orders.ts';
import { findOrder, paramsOf } from './rest-params.ts';
import { statusBody, type StatusVersion } from './status-body.ts';
import { answerUnavailable } from './unavailable.ts';

export interface RestDeps {
  book: OrderBook;
  clock: () => Date;
  logger: FastifyBaseLogger;
  credentials: CredentialsBook;
  newOrderId: () => string;
  /** The RRN and approval code of a new refund; the RRN is unique for the sandbox's life. */
  newRefundReceipt: (now: Date) => RefundReceipt;
  /** The base URL put in formUrl; known only once the server listens. */
  publicUrl: () => string;
  confirmDelayMs: number;
  /** Aborted when the sandbox stops, so a hanging confirmation does not hold shutdown. */
  stopping: AbortSignal;
  statusVersion: StatusVersion;
  /** The merchant login every order belongs to (getLastOrdersForMerchants' `merchants`). */
  merchantLogin: string;
  /** The zone of getLastOrdersForMerchants' `from` and `to`. */
  timeZone: string;
}

type Handler = (params: Params, reply: FastifyReply) => Promise<object> | object;
type OrderOperation = Exclude<BpcOperation, 'register' | 'getLastOrdersForMerchants'>;

const SUCCESS = { errorCode: BpcErrorCode.success, errorMessage: 'Success' };

/**
 * The BPC-style REST API under /payment/rest/: every call answers HTTP 200 with JSON
 * carrying an errorCode, checks the credentials before anything else, and acts only
 * when it answers 0 (confirmOrder.do records its acknowledgement whatever it answers).
 */
export function restRoutes(app: FastifyInstance, deps: RestDeps): void {
  const route = (operation: BpcOperation, handler: Handler) =>
    app.route({
      method: ['GET', 'POST'],
      url: `/payment/rest/${operation}.do`,
      handler: async (request, reply) => handler(paramsOf(request), reply),
    });
  const refused = (operation: BpcOperation) =>
    errorBody(operation, bpcError(BpcErrorCode.accessOrParameter, deps.credentials.refusal()));

  route('register', (params, reply) => {
    // Before anything else, credentials included: the network is "down".
    if (params.amount === String(UNAVAILABLE_AMOUNT)) {
      return answerUnavailable(reply);
    }
    if (!deps.credentials.accepts(params)) return refused('register');
    const request = parseRegisterRequest(params);
    if (!request.ok) return request.error;
    const order = registerOrder(request.value, deps.newOrderId(), deps.clock());
    if (!deps.book.add(order)) {
      return bpcError(BpcErrorCode.duplicateOrNoOrder, documentedMessage('register', '1'));
    }
    deps.logger.info({ orderId: order.orderId, amount: order.amount }, 'order registered');
    // Kept as a string join so a public URL with a path prefix (behind a proxy) works.
    const base = deps.publicUrl().replace(/\/+$/, '');
    const formUrl = `${base}/payment/merchants/form?mdOrder=${encodeURIComponent(order.orderId)}`;
    return { orderId: order.orderId, formUrl, errorCode: BpcErrorCode.success };
  });

  route('getOrderStatusExtended', (params) =>
    withOrder('getOrderStatusExtended', params, (order, language) =>
      statusBody(order, language, deps.statusVersion),
    ),
  );

  // Acknowledges the outcome, and says whether it did already. The "timeout at
  // confirmation" card's order is confirmed at once; only the answer is late.
  route('confirmOrder', (params) =>
    withOrder('confirmOrder', params, async (order, language) => {
      if (params.amount !== undefined && parseAmount(params.amount) !== order.amount) {
        return errorBody(
          'confirmOrder',
          bpcError(BpcErrorCode.notAllowed, 'Amount does not match the order'),
        );
      }
      const confirmed = confirmOrder(order, deps.clock());
      deps.book.save(confirmed.order);
      if (order.hangsAtConfirm && deps.confirmDelayMs > 0) {
        await sleep(deps.confirmDelayMs, undefined, { signal: deps.stopping }).catch(() => {});
      }
      const latest = deps.book.byId(order.orderId, deps.clock()) ?? confirmed.order;
      return confirmBody(latest, language, confirmed.verdict);
    }),
  );

  route('refund', (params) =>
    withOrder('refund', params, (order) => {
      const amount = params.amount ? parseAmount(params.amount) : null;
      if (amount === null) return bpcError(BpcErrorCode.accessOrParameter, 'Incorrect amount');
      const now = deps.clock();
      const refunded = refundOrder(order, { amount, ...deps.newRefundReceipt(now) }, now);
      if (!refunded.ok) return bpcError(BpcErrorCode.notAllowed, refunded.error);
      deps.book.save(refunded.value);
      deps.logger.info({ orderId: order.orderId, amount }, 'order refunded');
      return SUCCESS;
    }),
  );

  route('reverse', (params) =>
    withOrder('reverse', params, (order) => {
      const reversed = reverseOrder(order, deps.clock());
      if (!reversed.ok) return bpcError(BpcErrorCode.notAllowed, reversed.error);
      deps.book.save(reversed.value);
      deps.logger.info({ orderId: order.orderId }, 'order reversed');
      return SUCCESS;
    }),
  );

  const lastOrders = lastOrdersHandler(deps);
  route('getLastOrdersForMerchants', (params) =>
    deps.credentials.accepts(params) ? lastOrders(params) : refused('getLastOrdersForMerchants'),
  );

  /** Credentials, the order, and the answer language (the order's own by default). */
  async function withOrder(
    operation: OrderOperation,
    params: Params,
    use: (order: Order, language: Order['language']) => Promise<object> | object,
  ): Promise<object> {
    const fail = (error: BpcError) => errorBody(operation, error);
    if (!deps.credentials.accepts(params)) return refused(operation);
    const found = findOrder(deps.book, operation, params, deps.clock());
    if (!found.ok) return fail(found.error);
    const language = params.language ? parseLanguage(params.language) : found.order.language;
    if (!language) return fail(invalid('language', 'AR, FR or EN'));
    return use(found.order, language);
  }
}
