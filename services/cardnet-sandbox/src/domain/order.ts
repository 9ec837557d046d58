import { expirationOf, maskPan, type CardInput, type Result } from './card.ts';
import { OUTCOMES, type Language, type OutcomeName, type Verdict } from './test-cards.ts';

/** BPC order status: 0 registered, 1 pre-authorised, 2 deposited, 3 reversed, 4 refunded, 6 declined. */
export type OrderStatus = 0 | 1 | 2 | 3 | 4 | 6;

/** What the order keeps of the card: never the full PAN, never the CVV2. */
interface CardOnOrder {
  maskedPan: string;
  /** YYYYMM */
  expiration: string;
  cardholderName: string;
}

export interface OrderRequest {
  orderNumber: string;
  amount: number;
  returnUrl: string;
  failUrl: string;
  language: Language;
  description: string;
  sessionTimeoutSecs: number;
  jsonParams: Readonly<Record<string, string>>;
}

export interface Order extends Readonly<OrderRequest> {
  readonly orderId: string;
  /** Registration instant, epoch milliseconds (BPC's `date`). */
  readonly registeredAt: number;
  readonly status: OrderStatus;
  /** The verdict of the payment attempt; null while the payer has not paid. */
  readonly outcome: OutcomeName | null;
  readonly card: CardOnOrder | null;
  readonly approvalCode: string | null;
  /** The "timeout at confirmation" card paid this order. */
  readonly hangsAtConfirm: boolean;
  readonly refundedAmount: number;
  /** When the payer's card was judged, epoch milliseconds (BPC's `authDateTime`). */
  readonly authorizedAt: number | null;
  /** Every refund, oldest first: tests read them in the control API's ledger. */
  readonly refunds: readonly Refund[];
  /** When reverse.do reversed or cancelled the order, epoch milliseconds. */
  readonly reversedAt: number | null;
}

interface Refund {
  readonly amount: number;
  /** Epoch milliseconds. */
  readonly at: number;
}

/** BPC's action code of an order nobody tried to pay yet. */
const NO_ATTEMPT_ACTION_CODE = -100;

export function registerOrder(request: OrderRequest, orderId: string, now: Date): Order {
  return {
    ...request,
    orderId,
    registeredAt: now.getTime(),
    status: 0,
    outcome: null,
    card: null,
    approvalCode: null,
    hangsAtConfirm: false,
    refundedAmount: 0,
    authorizedAt: null,
    refunds: [],
    reversedAt: null,
  };
}

export function actionCodeOf(order: Order): number {
  return order.outcome === null ? NO_ATTEMPT_ACTION_CODE : OUTCOMES[order.outcome].actionCode;
}

/**
 * An unpaid order past its session timeout is declined (-2007). The sandbox applies
 * this whenever it looks at an order, so no timer is needed and tests control time.
 */
export function expireIfStale(order: Order, now: Date): Order {
  if (order.status !== 0) return order;
  if (now.getTime() < order.registeredAt + order.sessionTimeoutSecs * 1000) return order;
  return { ...order, status: 6, outcome: 'sessionExpired' };
}

/**
 * Applies the verdict on a card to the order. An order already decided stays as it
 * was (`charged: false`): a second submit of the form must never charge twice.
 */
export function payOrder(
  order: Order,
  attempt: { card: CardInput; verdict: Verdict; approvalCode: string },
  now: Date,
): { order: Order; charged: boolean } {
  const current = expireIfStale(order, now);
  if (current.status !== 0) return { order: current, charged: false };
  const { card, verdict } = attempt;
  const approved = verdict.outcome === 'approved';
  return {
    order: {
      ...current,
      status: OUTCOMES[verdict.outcome].orderStatus,
      outcome: verdict.outcome,
      card: {
        maskedPan: maskPan(card.pan),
        expiration: expirationOf(card),
        cardholderName: card.cardholderName,
      },
      approvalCode: approved ? attempt.approvalCode : null,
      hangsAtConfirm: approved && verdict.hangsAtConfirm,
      authorizedAt: now.getTime(),
    },
    charged: approved,
  };
}

/**
 * Refunds part or all of a deposited order; a full refund makes it refunded (4). `now`
 * only dates the refund (the routes pass the sandbox's clock).
 */
export function refundOrder(order: Order, amount: number, now = new Date()): Result<Order, string> {
  if (order.status !== 2)
    return { ok: false, error: 'Refund is impossible: order is not deposited' };
  const remaining = order.amount - order.refundedAmount;
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > remaining)
    return { ok: false, error: `Refund amount must be between 1 and ${remaining}` };
  const refundedAmount = order.refundedAmount + amount;
  return {
    ok: true,
    value: {
      ...order,
      refundedAmount,
      status: refundedAmount === order.amount ? 4 : 2,
      refunds: [...order.refunds, { amount, at: now.getTime() }],
    },
  };
}

/**
 * Cancels an order whose money has not moved back yet. A registered order is cancelled
 * too, so a payer still on the form can no longer pay an order its merchant gave up on.
 * `now` only dates the reversal, as for refunds.
 */
export function reverseOrder(order: Order, now = new Date()): Result<Order, string> {
  const reversedAt = now.getTime();
  if (order.status === 0)
    return { ok: true, value: { ...order, status: 3, outcome: 'cancelled', reversedAt } };
  if ((order.status === 1 || order.status === 2) && order.refundedAmount === 0)
    return { ok: true, value: { ...order, status: 3, reversedAt } };
  return { ok: false, error: 'Reversal is impossible: order is not in a reversible state' };
}

/** The payer goes back to returnUrl after an approved payment, to failUrl otherwise. */
export function redirectTarget(order: Order): string {
  const url = new URL(order.outcome === 'approved' ? order.returnUrl : order.failUrl);
  url.searchParams.set('orderId', order.orderId);
  return url.toString();
}
