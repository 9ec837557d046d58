import { expirationOf, maskPan, type CardInput, type Result } from './card.ts';
import { OUTCOMES, type Language, type OutcomeName, type Verdict } from './test-cards.ts';

/** BPC order status: 0 registered, 1 pre-authorised, 2 deposited, 3 reversed, 4 refunded, 6 declined. */
type OrderStatus = 0 | 1 | 2 | 3 | 4 | 6;

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
  /** confirmOrder.do acknowledged the outcome once: SATIM answers 2 to every later one. */
  readonly confirmed: boolean;
  /** Every operation the network executed on the order, oldest first: the oracle's record. */
  readonly history: readonly OrderEvent[];
}

/** What the network gives a refund: BPC lists both in getOrderStatusExtended's `refunds`. */
export interface RefundReceipt {
  /** The refund's RRN, 12 digits, unique per refund. */
  readonly referenceNumber: string;
  readonly approvalCode: string;
}

interface Refund extends RefundReceipt {
  readonly amount: number;
  /** Epoch milliseconds. */
  readonly at: number;
}

type OrderOperation = 'register' | 'pay' | 'confirm' | 'refund' | 'reverse';

/** One operation the network executed, with the order's status right after it. */
export interface OrderEvent {
  readonly operation: OrderOperation;
  /** Epoch milliseconds. */
  readonly at: number;
  readonly orderStatus: OrderStatus;
  /** register: the order's amount; refund: the refund's. */
  readonly amount?: number;
  /** refund: its RRN. */
  readonly referenceNumber?: string;
  /** confirm: the ErrorCode it answered. */
  readonly errorCode?: string;
}

/** BPC's paymentAmountInfo.paymentState, also getLastOrdersForMerchants' state filter. */
export const PAYMENT_STATES = [
  'CREATED',
  'APPROVED',
  'DEPOSITED',
  'DECLINED',
  'REVERSED',
  'REFUNDED',
] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

const PAYMENT_STATE_OF: Record<OrderStatus, PaymentState> = {
  0: 'CREATED',
  1: 'APPROVED',
  2: 'DEPOSITED',
  3: 'REVERSED',
  4: 'REFUNDED',
  6: 'DECLINED',
};

export function paymentStateOf(order: Order): PaymentState {
  return PAYMENT_STATE_OF[order.status];
}

/** Adds an operation to the order's history, with the status the order has now. */
export function withEvent(order: Order, event: Omit<OrderEvent, 'orderStatus'>): Order {
  return { ...order, history: [...order.history, { ...event, orderStatus: order.status }] };
}

/** BPC's action code of an order nobody tried to pay yet. */
const NO_ATTEMPT_ACTION_CODE = -100;

export function registerOrder(request: OrderRequest, orderId: string, now: Date): Order {
  const at = now.getTime();
  const order: Order = {
    ...request,
    orderId,
    registeredAt: at,
    status: 0,
    outcome: null,
    card: null,
    approvalCode: null,
    hangsAtConfirm: false,
    refundedAmount: 0,
    authorizedAt: null,
    refunds: [],
    reversedAt: null,
    confirmed: false,
    history: [],
  };
  return withEvent(order, { operation: 'register', at, amount: request.amount });
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
  const paid: Order = {
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
  };
  return { order: withEvent(paid, { operation: 'pay', at: now.getTime() }), charged: approved };
}

/** refund.do's refusals, in BPC's words (both errorCode 7). */
export const WRONG_STATE = 'Payment must be in the correct state';
export const AMOUNT_EXCEEDS = 'The refund amount exceeds the debited amount';
/** reverse.do's refusal (errorCode 7), a second reversal included. */
export const INVALID_FOR_STATUS = 'Invalid operation for the current order status';

/**
 * Refunds part or all of a deposited order. As BPC documents it, any refund, partial or
 * full, makes the order refunded (4), and a refunded order still takes refunds until
 * all that was debited went back: so 4 alone never means "nothing left to refund", and
 * a refund of a fully refunded order is refused as exceeding the debit, not for its state.
 */
export function refundOrder(
  order: Order,
  refund: RefundReceipt & { amount: number },
  now: Date,
): Result<Order, string> {
  if (order.status !== 2 && order.status !== 4) return { ok: false, error: WRONG_STATE };
  const { amount } = refund;
  const remaining = order.amount - order.refundedAmount;
  if (!Number.isSafeInteger(amount) || amount <= 0) return { ok: false, error: 'Incorrect amount' };
  if (amount > remaining) return { ok: false, error: AMOUNT_EXCEEDS };
  const refundedAmount = order.refundedAmount + amount;
  const at = now.getTime();
  const refunded: Order = {
    ...order,
    refundedAmount,
    status: 4,
    refunds: [...order.refunds, { ...refund, at }],
  };
  return {
    ok: true,
    value: withEvent(refunded, {
      operation: 'refund',
      at,
      amount,
      referenceNumber: refund.referenceNumber,
    }),
  };
}

/**
 * Cancels an order whose money has not moved back yet, once: BPC refuses a second
 * reversal, and a refunded order (4, after any refund, partial included). A registered
 * order is cancelled too, so a payer still on the form can no longer pay an order its
 * merchant gave up on.
 */
export function reverseOrder(order: Order, now: Date): Result<Order, string> {
  const reversedAt = now.getTime();
  const event = { operation: 'reverse', at: reversedAt } as const;
  if (order.status === 0)
    return {
      ok: true,
      value: withEvent({ ...order, status: 3, outcome: 'cancelled', reversedAt }, event),
    };
  if (order.status === 1 || order.status === 2)
    return { ok: true, value: withEvent({ ...order, status: 3, reversedAt }, event) };
  return { ok: false, error: INVALID_FOR_STATUS };
}

/** The payer goes back to returnUrl after an approved payment, to failUrl otherwise. */
export function redirectTarget(order: Order): string {
  const url = new URL(order.outcome === 'approved' ? order.returnUrl : order.failUrl);
  url.searchParams.set('orderId', order.orderId);
  return url.toString();
}
