import type { Result } from './card.ts';
import { BpcErrorCode, bpcError, invalid, type BpcError, type Params } from './bpc-errors.ts';
import { parseLocalTimestamp } from './local-time.ts';
import { paymentStateOf, PAYMENT_STATES, type Order, type PaymentState } from './order.ts';
import { parseLanguage } from './register-request.ts';
import type { Language } from './test-cards.ts';

/** BPC's largest page of getLastOrdersForMerchants.do. */
const MAX_PAGE_SIZE = 200;

export interface LastOrdersQuery {
  size: number;
  /** 0-based. */
  page: number;
  /** Epoch milliseconds, both included to the second. */
  from: number;
  to: number;
  states: ReadonlySet<PaymentState>;
  /** The merchant logins asked for; empty means every merchant the user may see. */
  merchants: readonly string[];
  /** true: by registration date; false: by payment date (authDateTime). */
  byCreatedDate: boolean;
  /** The language of the answer's texts; absent, each order's own. */
  language: Language | null;
}

/**
 * Reads getLastOrdersForMerchants.do's parameters. BPC documents only 5 for this call
 * ("one of the required fields is empty", access denied), so every absent or wrong
 * value is 5. `from` and `to` are wall-clock times in the gateway's `timeZone`.
 */
export function parseLastOrdersQuery(
  params: Params,
  timeZone: string,
): Result<LastOrdersQuery, BpcError> {
  const fail = (error: BpcError) => ({ ok: false as const, error });
  for (const name of ['size', 'from', 'to', 'transactionStates'])
    if (!params[name])
      return fail(
        bpcError(BpcErrorCode.accessOrParameter, `One of the required fields is empty: ${name}`),
      );

  const size = /^\d{1,3}$/.test(params.size!) ? Number(params.size) : 0;
  if (size < 1 || size > MAX_PAGE_SIZE)
    return fail(invalid('size', `an integer from 1 to ${MAX_PAGE_SIZE}`));
  const page = params.page ? (/^\d{1,9}$/.test(params.page) ? Number(params.page) : -1) : 0;
  if (page < 0) return fail(invalid('page', 'an integer from 0'));

  const from = parseLocalTimestamp(params.from!, timeZone);
  if (from === null) return fail(invalid('from', 'yyyyMMddHHmmss'));
  const to = parseLocalTimestamp(params.to!, timeZone);
  if (to === null) return fail(invalid('to', 'yyyyMMddHHmmss'));
  if (from >= to) return fail(invalid('from', 'before to'));

  const states = params.transactionStates!.split(',');
  if (!states.every((state) => (PAYMENT_STATES as readonly string[]).includes(state)))
    return fail(invalid('transactionStates', PAYMENT_STATES.join(',')));

  const byCreatedDate = params.searchByCreatedDate ?? 'false';
  if (byCreatedDate !== 'true' && byCreatedDate !== 'false')
    return fail(invalid('searchByCreatedDate', 'true or false'));

  const language = params.language ? parseLanguage(params.language) : null;
  if (params.language && !language) return fail(invalid('language', 'AR, FR or EN'));

  return {
    ok: true,
    value: {
      size,
      page,
      from,
      to,
      states: new Set(states as PaymentState[]),
      merchants: (params.merchants ?? '')
        .split(',')
        .map((login) => login.trim())
        .filter((login) => login !== ''),
      byCreatedDate: byCreatedDate === 'true',
      language,
    },
  };
}

/**
 * The page of orders a query asks for, and how many match in all, in a stable order:
 * by the date searched, then by order id. By payment date, an order nobody paid
 * (CREATED, DECLINED, cancelled unpaid) has no such date and never appears, as BPC
 * documents. Every order here belongs to `merchant`, the sandbox's one merchant login.
 */
export function selectOrders(
  orders: readonly Order[],
  query: LastOrdersQuery,
  merchant: string,
): { orders: Order[]; totalCount: number } {
  if (query.merchants.length > 0 && !query.merchants.includes(merchant))
    return { orders: [], totalCount: 0 };
  const dateOf = (order: Order): number | null =>
    query.byCreatedDate ? order.registeredAt : paidAt(order);
  const toEnd = query.to + 999;
  const matching = orders
    .flatMap((order) => {
      const date = dateOf(order);
      if (date === null || date < query.from || date > toEnd) return [];
      return query.states.has(paymentStateOf(order)) ? [{ order, date }] : [];
    })
    .sort((a, b) => a.date - b.date || (a.order.orderId < b.order.orderId ? -1 : 1));
  const start = query.page * query.size;
  return {
    orders: matching.slice(start, start + query.size).map(({ order }) => order),
    totalCount: matching.length,
  };
}

/** When the order's money was taken: declined and unpaid orders have no payment date. */
function paidAt(order: Order): number | null {
  return order.status === 0 || order.status === 6 ? null : order.authorizedAt;
}
