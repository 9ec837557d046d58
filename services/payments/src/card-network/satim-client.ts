import type { z } from 'zod';
import {
  CardNetworkError,
  type CardNetwork,
  type CardOrderStatus,
  type OrdersQuery,
} from './card-network.ts';
import { meaningOf } from './satim-error-codes.ts';
import {
  bpcTimestamp,
  errorCodeOf,
  errorMessageOf,
  mdOrderOf,
  OrdersAnswer,
  orderStateOf,
  RegisterAnswer,
  SatimAnswer,
  StatusAnswer,
  toCardOrderStatus,
} from './satim-protocol.ts';

export interface SatimOptions {
  /** Scheme and host (and any path prefix) in front of /payment/rest/. */
  baseUrl: string;
  userName: string;
  password: string;
  /** Longest wait for one answer, body included. */
  timeoutMs: number;
  /** Sent as jsonParams.force_terminal_id: the terminal that owns the merchant's orders. */
  terminalId?: string;
  /** The network's own time zone, in which getLastOrdersForMerchants.do reads its dates. */
  timeZone?: string;
  fetch?: typeof fetch;
}

const DZD = '012';
const ALL_STATES = 'CREATED,APPROVED,DEPOSITED,DECLINED,REVERSED,REFUNDED';

/**
 * SATIM over its BPC-style REST API: form-encoded POSTs, JSON answers, an errorCode in
 * every answer, read by what it means for that operation (satim-error-codes.ts): only
 * "order not found" says an order holds no money; any other code says the network did
 * not act now. Credentials travel only in request bodies: never in a URL, an error
 * message or a log line.
 */
export function satimCardNetwork(options: SatimOptions): CardNetwork {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeZone = options.timeZone ?? 'Africa/Algiers';

  async function call(
    operation: string,
    params: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    const fail = (kind: 'unavailable' | 'timeout', detail: string, cause?: unknown) =>
      networkError(kind, operation, detail, { cause });
    let status: number;
    let text: string;
    try {
      const response = await doFetch(`${base}/payment/rest/${operation}.do`, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: new URLSearchParams({
          userName: options.userName,
          password: options.password,
          ...params,
        }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (isTimeout(error)) throw fail('timeout', `no answer in ${options.timeoutMs} ms`, error);
      throw fail('unavailable', 'no answer', error);
    }
    if (status >= 300) throw fail('unavailable', `HTTP ${status}`);
    const answer = SatimAnswer.safeParse(parseJson(text));
    if (!answer.success) throw fail('unavailable', `HTTP ${status} without a SATIM answer`);
    const errorCode = errorCodeOf(answer.data);
    const meaning = meaningOf(operation, errorCode);
    if (meaning !== 'done') {
      const message = `errorCode ${errorCode} (${errorMessageOf(answer.data)})`;
      const kind = meaning === 'order-unknown' ? 'order-unknown' : 'refused';
      throw networkError(kind, operation, message, { errorCode, meaning });
    }
    return answer.data;
  }

  function read<S extends z.ZodType>(operation: string, schema: S, data: unknown): z.infer<S> {
    const parsed = schema.safeParse(data);
    if (parsed.success) return parsed.data;
    throw networkError('unavailable', operation, 'unexpected answer', { cause: parsed.error });
  }

  function orderOf(operation: string, orderId: string, answer: StatusAnswer): CardOrderStatus {
    const state = orderStateOf(answer.orderStatus);
    if (!state) {
      throw networkError('unavailable', operation, `unknown orderStatus ${answer.orderStatus}`);
    }
    return toCardOrderStatus(orderId, answer, state);
  }

  async function readStatus(orderId: string): Promise<CardOrderStatus> {
    const operation = 'getOrderStatusExtended';
    const answer = read(operation, StatusAnswer, await call(operation, { orderId }));
    return orderOf(operation, orderId, answer);
  }

  /**
   * A read changes nothing, so one more try after a lost answer is safe. A refusal
   * (access denied, system error) is not tried again at once: the caller backs off.
   */
  async function status(orderId: string): Promise<CardOrderStatus> {
    try {
      return await readStatus(orderId);
    } catch (error) {
      if (error instanceof CardNetworkError && error.outcomeUnknown) return readStatus(orderId);
      throw error;
    }
  }

  async function orders(query: OrdersQuery) {
    const operation = 'getLastOrdersForMerchants';
    const answer = read(
      operation,
      OrdersAnswer,
      await call(operation, {
        size: String(query.size),
        page: String(query.page),
        from: bpcTimestamp(query.from, timeZone),
        to: bpcTimestamp(query.to, timeZone),
        transactionStates: ALL_STATES,
        merchants: '',
        searchByCreatedDate: 'true',
      }),
    );
    return {
      totalCount: answer.totalCount,
      orders: answer.orderStatuses.flatMap((order) => {
        const orderId = mdOrderOf(order.attributes);
        return orderId ? [orderOf(operation, orderId, order)] : [];
      }),
    };
  }

  return {
    async register(order) {
      const jsonParams = {
        ...(options.terminalId && { force_terminal_id: options.terminalId }),
        ...(order.udf1 && { udf1: order.udf1 }),
      };
      const answer = await call('register', {
        orderNumber: order.orderNumber,
        amount: String(order.amount),
        currency: DZD,
        returnUrl: order.returnUrl,
        failUrl: order.failUrl,
        language: order.language.toUpperCase(),
        description: order.description,
        sessionTimeoutSecs: String(order.sessionTimeoutSecs),
        ...(Object.keys(jsonParams).length > 0 && { jsonParams: JSON.stringify(jsonParams) }),
      });
      const { orderId, formUrl } = read('register', RegisterAnswer, answer);
      return { orderId, formUrl };
    },

    status,
    orders,

    // The write calls are never retried: a second register, refund or reverse could act
    // twice. Their own answers differ between SATIM versions (confirmOrder.do's keys are
    // capitalised, its codes 2 and 3 carry verdicts), so the state always comes from one
    // status read afterwards.
    async confirm(orderId) {
      await call('confirmOrder', { orderId });
      return status(orderId);
    },

    async refund(orderId, amount) {
      await call('refund', { orderId, amount: String(amount) });
      return status(orderId);
    },

    async reverse(orderId) {
      await call('reverse', { orderId });
      return status(orderId);
    },
  };
}

function networkError(
  kind: CardNetworkError['kind'],
  operation: string,
  detail: string,
  options: ConstructorParameters<typeof CardNetworkError>[3] = {},
): CardNetworkError {
  return new CardNetworkError(kind, operation, `SATIM ${operation}.do: ${detail}`, options);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** AbortSignal.timeout aborts with a TimeoutError, whether during connect or the body. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}
