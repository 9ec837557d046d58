import { moneyKept, type CardOrderStatus, type NetworkRefund } from './card-order.ts';

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
  /** requested: written, maybe asked, outcome unknown; then succeeded or failed. */
  state: 'requested' | 'succeeded' | 'failed';
  /** The card network's refunded amount of the order when the intent was written. */
  baseRefunded: number;
  /**
   * When refund.do was sent (the database's clock); null while it never was: an intent
   * not asked yet may be asked, one asked never is again.
   */
  askedAt: Date | null;
  /** The entry of the order's refund history that is this refund, once known. */
  networkReference: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What the order's refund history says of an intent that was asked. */
export type RefundVerdict =
  /** It is in the history (entry: which one; null when only the refunded amount tells). */
  | { kind: 'happened'; entry: string | null }
  /** Not there yet, and it still may land. */
  | { kind: 'not-yet' }
  /** It can no longer land: the order cannot take it, or the horizon passed without it. */
  | { kind: 'did-not-happen'; why: string };

/**
 * How far before our record of the ask the network may date the refund: our clock and
 * the network's disagree a little. An unaccounted entry of the same amount from before
 * the ask is an anomaly anyway (the reconciler raises it).
 */
const CLOCK_TOLERANCE_MS = 5 * 60 * 1000;

/** The key of a refund history entry: the network's reference, else its place in the list. */
function entryKey(entry: NetworkRefund, index: number): string {
  return entry.reference ?? `#${index}`;
}

/**
 * Decides an asked refund from the order as the network shows it, never by asking
 * again: refund.do has no idempotency key, and a call whose answer was lost may still
 * land long after. With a refund history, the intent is the first entry of its amount,
 * dated after it was asked, that no other intent of the order accounts for. Without one
 * (older status versions), the refunded amount reaching base + amount tells, which is
 * exact because one intent of an order is open at a time. Past `horizonMs` since the ask
 * with no sign of it, it is taken as not made (a later landing is the reconciler's alarm).
 */
export function refundVerdict(input: {
  intent: Pick<RefundIntent, 'amount' | 'baseRefunded' | 'askedAt'>;
  order: CardOrderStatus;
  /** History keys other intents of this order already account for. */
  accounted: ReadonlySet<string>;
  now: Date;
  horizonMs: number;
}): RefundVerdict {
  const { intent, order, accounted, now } = input;
  const askedAt = intent.askedAt ?? now;
  if (order.refunds) {
    const earliest = askedAt.getTime() - CLOCK_TOLERANCE_MS;
    const index = order.refunds.findIndex(
      (entry, i) =>
        !accounted.has(entryKey(entry, i)) &&
        entry.amount === intent.amount &&
        (entry.at === null || entry.at.getTime() >= earliest),
    );
    if (index >= 0) return { kind: 'happened', entry: entryKey(order.refunds[index]!, index) };
  } else if (order.refundedAmount >= intent.baseRefunded + intent.amount) {
    return { kind: 'happened', entry: null };
  }
  if (moneyKept(order) < intent.amount) {
    return { kind: 'did-not-happen', why: 'the order can no longer be refunded by this amount' };
  }
  if (now.getTime() - askedAt.getTime() >= input.horizonMs) {
    return { kind: 'did-not-happen', why: 'not in the order refund history within the horizon' };
  }
  return { kind: 'not-yet' };
}

/**
 * What the network refunded of an order beyond what dzpay's intents account for
 * (succeeded ones, plus one still open that may have landed): more than zero is money
 * that left without dzpay's word, never absorbed in silence.
 */
export function unexplainedRefunded(
  order: Pick<CardOrderStatus, 'refundedAmount'>,
  intents: readonly Pick<RefundIntent, 'amount' | 'state'>[],
): number {
  const accounted = intents
    .filter((intent) => intent.state !== 'failed')
    .reduce((sum, intent) => sum + intent.amount, 0);
  return Math.max(0, order.refundedAmount - accounted);
}
