import { declinedWithCode, FailureReasons } from '@dzpay/contracts';
import type { CardOrderStatus } from './card-order.ts';
import { EXPIRED } from './checkout-status.ts';

/** What the card network's word about an order means for our attempt. */
export type CardOutcome =
  | {
      kind: 'paid';
      approvalCode: string | null;
      maskedPan: string | null;
      actionCode: number | null;
    }
  | { kind: 'declined'; reason: string; actionCode: number | null; maskedPan: string | null }
  | { kind: 'undecided' }
  /** The window closed: the order must be cancelled so a late payment cannot land. */
  | { kind: 'expire' }
  /** Paid, but for another amount than ours: never accepted, refunded at once. */
  | { kind: 'amount-mismatch'; paidAmount: number }
  /** Paid after the window closed (the payer finished the form late): refunded, expired. */
  | { kind: 'late'; paidAmount: number };

/**
 * Decides an open attempt from the card network's status of its order. Only states 2
 * (deposited), 3, 4 and 6 are final at the card network; anything else stays open
 * until the window closes. The amount is checked, never trusted, and so is the time of
 * the payment: after the window, an attempt can no longer be paid. A reversed order is
 * "cancelled" when a merchant's cancel asked for it (`cancelAsked`), whenever it landed:
 * a reversal the network executed after its call timed out often lands past the window.
 */
export function cardOutcome(
  order: CardOrderStatus,
  total: number,
  expiresAt: Date,
  now: Date,
  cancelAsked = false,
): CardOutcome {
  const windowClosed = now >= expiresAt;
  switch (order.state) {
    case 'deposited':
      if (order.amount !== total) return { kind: 'amount-mismatch', paidAmount: order.amount };
      // When the network says when the card was authorised, that decides; otherwise
      // (a network that does not say) a deposit seen after the window counts as late.
      if ((order.authorizedAt ?? now) > expiresAt)
        return { kind: 'late', paidAmount: order.amount };
      return {
        kind: 'paid',
        approvalCode: order.approvalCode,
        maskedPan: order.maskedPan,
        actionCode: order.actionCode,
      };
    case 'declined':
    case 'failed':
      return {
        kind: 'declined',
        reason: declineReason(order),
        actionCode: order.actionCode,
        maskedPan: order.maskedPan,
      };
    case 'reversed':
    case 'refunded':
      return {
        kind: 'declined',
        reason: windowClosed && !cancelAsked ? EXPIRED : 'cancelled',
        actionCode: order.actionCode,
        maskedPan: order.maskedPan,
      };
    case 'registered':
    case 'preauthorized':
      return windowClosed ? { kind: 'expire' } : { kind: 'undecided' };
  }
}

/** A short, stable reason: the card network's text when it gave one, else its code. */
function declineReason(order: CardOrderStatus): string {
  if (order.description) return order.description;
  if (order.actionCode !== null) return declinedWithCode(order.actionCode);
  return FailureReasons.declined;
}
