/**
 * The card network as the payments service sees it. SATIM is the one implementation
 * today; the shape is the network's order model (register, pay on its form, confirm,
 * refund, reverse), not SATIM's wire format.
 */
import type { CardOrderStatus } from '../domain/card-order.ts';
import type { ErrorMeaning } from './satim-error-codes.ts';

export type { CardOrderStatus, NetworkRefund, OrderState } from '../domain/card-order.ts';
export type { ErrorMeaning } from './satim-error-codes.ts';

export interface RegisterOrder {
  /** Unique forever at the network, even across failed orders. */
  orderNumber: string;
  /** Centimes. */
  amount: number;
  returnUrl: string;
  failUrl: string;
  language: 'ar' | 'fr' | 'en';
  description: string;
  sessionTimeoutSecs: number;
  udf1?: string;
}

/** One page of the orders the network holds for us, for reconciliation. */
interface OrdersPage {
  orders: CardOrderStatus[];
  /** Orders matching the query, all pages together. */
  totalCount: number;
}

export interface OrdersQuery {
  /** Orders registered (not paid) in [from, to). */
  from: Date;
  to: Date;
  /** 0-based. */
  page: number;
  /** At most 200 (BPC's limit). */
  size: number;
}

/**
 * Only reads (`status`, `orders`) are ever retried by an implementation: the other calls
 * move money or create orders, so after a failure the caller asks `status` what actually
 * happened. `confirm`, `refund` and `reverse` answer with a status read made after their
 * call, so even their failure may come after the network acted.
 */
export interface CardNetwork {
  register(order: RegisterOrder): Promise<{ orderId: string; formUrl: string }>;
  status(orderId: string): Promise<CardOrderStatus>;
  confirm(orderId: string): Promise<CardOrderStatus>;
  refund(orderId: string, amount: number): Promise<CardOrderStatus>;
  reverse(orderId: string): Promise<CardOrderStatus>;
  orders(query: OrdersQuery): Promise<OrdersPage>;
}

/**
 * - `unavailable`: no usable answer (refused connection, 5xx, not the protocol); a write
 *   may or may not have happened.
 * - `timeout`: no answer in time; a write may have happened, or may still happen later.
 * - `refused`: the network answered an errorCode: it did not act. `meaning` says why.
 * - `order-unknown`: the network answered that the order does not exist (errorCode 6 on
 *   a call naming an order): it can hold no money.
 */
type CardNetworkErrorKind = 'unavailable' | 'timeout' | 'refused' | 'order-unknown';

export class CardNetworkError extends Error {
  readonly kind: CardNetworkErrorKind;
  /** The network's errorCode when it answered one, else null. */
  readonly errorCode: string | null;
  /** What the errorCode means for this operation; null without an errorCode. */
  readonly meaning: ErrorMeaning | null;
  /** The network operation that failed, in its own terms (`register`, `confirmOrder`…). */
  readonly operation: string;

  constructor(
    kind: CardNetworkErrorKind,
    operation: string,
    message: string,
    options: { errorCode?: string; meaning?: ErrorMeaning; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'CardNetworkError';
    this.kind = kind;
    this.operation = operation;
    this.errorCode = options.errorCode ?? null;
    this.meaning = options.meaning ?? null;
  }

  /** The call may have acted at the network, now or later: its outcome must be read. */
  get outcomeUnknown(): boolean {
    return this.kind === 'unavailable' || this.kind === 'timeout';
  }
}

/** The network said the order does not exist: the one answer that means "no money taken". */
export function isOrderUnknown(error: unknown): boolean {
  return error instanceof CardNetworkError && error.kind === 'order-unknown';
}
