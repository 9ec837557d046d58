/**
 * The card network's order as payments reasons about it: the network's order model
 * (register, pay on its form, confirm, refund, reverse), not SATIM's wire format. The
 * adapters translate their protocol into it.
 */
export type OrderState =
  'registered' | 'preauthorized' | 'deposited' | 'reversed' | 'refunded' | 'declined' | 'failed';

/** One refund the network made of an order, as its refund history lists it. */
export interface NetworkRefund {
  /** Centimes. */
  amount: number;
  /** When the network made it; null when it does not say. */
  at: Date | null;
  /** The network's reference of the refund (its RRN); null when it does not give one. */
  reference: string | null;
}

export interface CardOrderStatus {
  orderId: string;
  orderNumber: string;
  state: OrderState;
  /** Centimes. */
  amount: number;
  refundedAmount: number;
  /**
   * Every refund of the order, oldest first, when the network lists them (BPC's
   * `refunds`); null when its status answer has no such list (older status versions):
   * then only `refundedAmount` tells.
   */
  refunds: NetworkRefund[] | null;
  actionCode: number | null;
  /** ISO 8583 response code; "00" is approved. */
  respCode: string | null;
  /** The network's text for the outcome, the one meant for the payer. */
  description: string | null;
  approvalCode: string | null;
  /** First 6 + ** + last 4. */
  maskedPan: string | null;
  /** When the card was authorised; null until then or when the network does not say. */
  authorizedAt: Date | null;
  /** When the order was registered; null when the network does not say. */
  registeredAt: Date | null;
  /** Our payment id, as sent in jsonParams.udf1 at registration; null when absent. */
  udf1: string | null;
}

/** States in which the payer can still pay the order. */
export function isPayable(state: OrderState): boolean {
  return state === 'registered' || state === 'preauthorized';
}

/**
 * Centimes the network holds of the order: what was deposited less what went back. BPC
 * shows any refunded order as refunded (4), partly refunded ones included, so both
 * states can hold money.
 */
export function moneyKept(
  order: Pick<CardOrderStatus, 'state' | 'amount' | 'refundedAmount'>,
): number {
  const deposited = order.state === 'deposited' || order.state === 'refunded';
  return deposited ? Math.max(0, order.amount - order.refundedAmount) : 0;
}

/**
 * A card order may still be paid this long after our window closed (clock skew, a payer
 * finishing the form late): settlement watches a failed attempt's order that long, and
 * reconciliation counts a payable order as a discrepancy only past it. A hosted
 * checkout's order is registered when its payer presses pay, with SATIM's shortest
 * session (600 s) even when less of the window is left: its form may outlive the window
 * by those 10 minutes, so the grace is that and 5 minutes more.
 */
export const LATE_PAYMENT_GRACE_MS = 15 * 60 * 1000;
