/**
 * Why dzpay refunds: a merchant asked (of a success), or money reached the card network
 * for an attempt dzpay recorded as failed (paid after the window, paid another amount,
 * the second success of a sale, or found later by the sweeper).
 */
export type RefundReason = 'merchant' | 'late' | 'amount-mismatch' | 'already-paid' | 'refund-due';

/** A refund as dzpay meant it, written before the card network was asked. */
export interface RefundIntent {
  id: string;
  paymentId: string;
  /** Centimes. */
  amount: number;
  reason: RefundReason;
  idempotencyKey: string | null;
  /** requested: asked (or about to be), outcome unknown; then succeeded or failed. */
  state: 'requested' | 'succeeded' | 'failed';
  /** The card network's refunded amount of the order when the intent was written. */
  baseRefunded: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Whether an intent happened, from the card network's refunded amount of its order. One
 * intent per payment is open at a time and every refund of an order is an intent, so
 * the network's count reaching base + amount can only be this refund.
 */
export function intentHappened(intent: RefundIntent, networkRefunded: number): boolean {
  return networkRefunded >= intent.baseRefunded + intent.amount;
}
