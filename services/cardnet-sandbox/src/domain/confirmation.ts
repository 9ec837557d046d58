import { BpcErrorCode, DOCUMENTED_MESSAGES } from './bpc-errors.ts';
import { withEvent, type Order } from './order.ts';

/** SATIM's confirmOrder.do verdict: its ErrorCode and ErrorMessage. */
export interface Confirmation {
  /** "0" first time, "2" every later time, "3" while or once nothing was paid. */
  errorCode: '0' | '2' | '3';
  errorMessage: string;
}

const MESSAGES = DOCUMENTED_MESSAGES.confirmOrder;

/**
 * Acknowledges the order's outcome, as SATIM's confirmOrder.do does. Observed on SATIM:
 * the first confirmation of a paid order answers 0, every later one 2 with the order
 * still paid (integrators read 2 as "already confirmed", whatever its documented text
 * says), and a declined order 3, "not confirmed due to the order's state". An order
 * nobody paid yet gets 3 as well: nothing to confirm, and confirming it changes nothing.
 * A reversed, cancelled or refunded order is confirmed like a paid one (SATIM answers 0
 * with OrderStatus 3 for an order cancelled on its payment page).
 */
export function confirmOrder(order: Order, now: Date): { order: Order; verdict: Confirmation } {
  const confirmable = order.status !== 0 && order.status !== 6;
  const verdict: Confirmation = !confirmable
    ? { errorCode: BpcErrorCode.currencyOrState, errorMessage: MESSAGES['3']! }
    : order.confirmed
      ? { errorCode: BpcErrorCode.alreadyConfirmed, errorMessage: MESSAGES['2']! }
      : { errorCode: BpcErrorCode.success, errorMessage: 'Success' };
  const confirmed = { ...order, confirmed: order.confirmed || confirmable };
  return {
    order: withEvent(confirmed, {
      operation: 'confirm',
      at: now.getTime(),
      errorCode: verdict.errorCode,
    }),
    verdict,
  };
}
