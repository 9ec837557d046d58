/**
 * The card network as the payments service sees it. SATIM is the one implementation
 * today; the shape is the network's order model (register, pay on its form, confirm,
 * refund, reverse), not SATIM's wire format.
 */
import type { CardOrderStatus } from '../../domain/card-order.ts';

export type { CardOrderStatus, OrderState } from '../../domain/card-order.ts';

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

/**
 * Only `status` is ever retried by an implementation: the other calls move money or
 * create orders, so after a failure the caller asks `status` what actually happened.
 * `confirm`, `refund` and `reverse` answer with a status read made after their call,
 * so even their failure may come after the network acted.
 */
export interface CardNetwork {
  register(order: RegisterOrder): Promise<{ orderId: string; formUrl: string }>;
  status(orderId: string): Promise<CardOrderStatus>;
  confirm(orderId: string): Promise<CardOrderStatus>;
  refund(orderId: string, amount: number): Promise<CardOrderStatus>;
  reverse(orderId: string): Promise<CardOrderStatus>;
}

/**
 * - `unavailable`: no usable answer (refused connection, 5xx, not the protocol); the
 *   call may or may not have happened.
 * - `timeout`: no answer in time; the call may or may not have happened.
 * - `rejected`: the network refused the call (an errorCode other than 0).
 */
type CardNetworkErrorKind = 'unavailable' | 'timeout' | 'rejected';

export class CardNetworkError extends Error {
  readonly kind: CardNetworkErrorKind;
  /** The network's errorCode when it answered one (`rejected`), else null. */
  readonly errorCode: string | null;
  /** The network operation that failed, in its own terms (`register`, `confirmOrder`…). */
  readonly operation: string;

  constructor(
    kind: CardNetworkErrorKind,
    operation: string,
    message: string,
    options: { errorCode?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'CardNetworkError';
    this.kind = kind;
    this.operation = operation;
    this.errorCode = options.errorCode ?? null;
  }
}
