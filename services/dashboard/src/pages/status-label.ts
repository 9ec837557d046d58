import type { CheckoutStatus } from '@dzpay/contracts';
import type { PaymentsText } from './payments-messages.ts';

/**
 * A payment's status as every page names it: a paid payment with part of it refunded
 * says so (the API's status stays `success` until all of it is refunded).
 */
export function statusLabel(
  payment: { status: CheckoutStatus; refundedAmount: number },
  text: PaymentsText,
): string {
  if (payment.status === 'success' && payment.refundedAmount > 0) return text.partiallyRefunded;
  return text.statuses[payment.status];
}
