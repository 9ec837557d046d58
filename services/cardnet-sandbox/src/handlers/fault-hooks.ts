import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { bpcError, documentedMessage, type Params } from '../domain/bpc-errors.ts';
import { FAULT_OPERATIONS, type FaultCall, type FaultOperation } from '../domain/faults.ts';
import type { CallCounter } from '../call-stats.ts';
import { holdCall, type FaultInjector } from '../fault-injector.ts';
import type { OrderBook } from '../order-book.ts';
import { errorBody } from './answer-bodies.ts';
import { paramsOf } from './rest-params.ts';
import { answerUnavailable } from './unavailable.ts';

export interface FaultHookDeps {
  book: OrderBook;
  clock: () => Date;
  logger: FastifyBaseLogger;
  injector: FaultInjector;
  counter: CallCounter;
  /** Aborted when the sandbox stops: no delay may hold shutdown. */
  stopping: AbortSignal;
}

/** The route of each operation a rule can target. */
const OPERATION_OF_ROUTE = new Map<string, FaultOperation>(
  FAULT_OPERATIONS.map((operation) => [
    operation === 'pay' ? '/payment/merchants/pay' : `/payment/rest/${operation}.do`,
    operation,
  ]),
);

/**
 * Counts every REST and pay call, and applies the fault rules to them, around the
 * routes rather than inside them: the routes stay what SATIM does, and the faults are
 * what the network between the client and SATIM does. Installed only with
 * SANDBOX_CONTROL, so without it the sandbox runs exactly as before. Must be added
 * before the routes.
 */
export function faultHooks(app: FastifyInstance, deps: FaultHookDeps): void {
  /** The calls being handled: ended when their answer is ready, lost or not. */
  const calls = new WeakMap<FastifyRequest, { end: () => void; loseAnswer: boolean }>();

  // preHandler: the body is parsed by then, and rules filter on the order it names.
  app.addHook('preHandler', async (request, reply) => {
    const operation = OPERATION_OF_ROUTE.get(request.routeOptions.url ?? '');
    if (!operation) return;
    const call = { end: deps.counter.begin(operation), loseAnswer: false };
    calls.set(request, call);
    const fault = deps.injector.faultFor(describeCall(operation, paramsOf(request)));
    if (!fault) return;
    const { rule } = fault;
    deps.logger.info({ operation, effect: rule.effect, rule: rule.id }, 'fault injected');
    switch (rule.effect) {
      case 'latency':
        return holdCall(rule.ms, deps.stopping);
      case 'hang':
        // The call goes on once released: a network that answered too late still acted.
        return holdCall(rule.ms, fault.released);
      case 'unavailable':
        return answerUnavailable(reply);
      case 'lost-answer':
        call.loseAnswer = true;
        return;
      case 'late':
        // The client sees the connection drop before anything happened; the call then
        // goes on `ms` later, as if it arrived then (credentials, order, clock), the way
        // a request stuck in a queue in front of SATIM lands after its client gave up.
        // Only stopping ends the wait early: a new set of rules does not.
        request.raw.socket.destroy();
        return holdCall(rule.ms, deps.stopping);
      case 'error-code': {
        // The rules refuse error-code on the card form, which answers HTML.
        if (operation === 'pay') return;
        // Answered as the network refusing the call: nothing done.
        const code = rule.errorCode!;
        const errorMessage = rule.errorMessage ?? documentedMessage(operation, code);
        return reply.send(errorBody(operation, bpcError(code, errorMessage)));
      }
    }
  });

  // onSend runs for every answer, the handler's or an error's, before it is written.
  app.addHook('onSend', async (request, _reply, payload) => {
    const call = calls.get(request);
    if (!call) return payload;
    call.end();
    // The operation is done; the client gets a connection error instead of the answer.
    // Node drops what Fastify writes after this without an error.
    if (call.loseAnswer) request.raw.socket.destroy();
    return payload;
  });

  /** The order a call is about, by id and number where the sandbox knows it. */
  function describeCall(operation: FaultOperation, params: Params): FaultCall {
    const orderId = (operation === 'pay' ? params.mdOrder : params.orderId) || undefined;
    const orderNumber = params.orderNumber || undefined;
    if (operation === 'register') return { operation, orderNumber };
    if (operation === 'getLastOrdersForMerchants') return { operation };
    const now = deps.clock();
    // Only the status call finds an order by its number, as findOrder does.
    const order = orderId
      ? deps.book.byId(orderId, now)
      : operation === 'getOrderStatusExtended' && orderNumber
        ? deps.book.byNumber(orderNumber, now)
        : undefined;
    return { operation, orderId: order?.orderId ?? orderId, orderNumber: order?.orderNumber };
  }
}
