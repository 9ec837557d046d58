import { FailureReasons, type CheckoutStatus, type PaymentStatus } from '@dzpay/contracts';

/** Why an attempt failed when the payment window closed before it was paid. */
export const EXPIRED = FailureReasons.expired;

/** Why an attempt failed when its merchant cancelled it before it was paid. */
export const CANCELLED = FailureReasons.cancelled;

/**
 * Why an attempt failed although its card was charged: another attempt of the same sale
 * succeeded first. The charge is refunded.
 */
export const ALREADY_PAID = FailureReasons.alreadyPaid;

/**
 * The hosted-checkout API's status of an attempt: internal `pending` reads `created`,
 * a failure because the window closed reads `expired`, and one because the merchant
 * cancelled it (or its card order was reversed inside the window) reads `cancelled`.
 */
export function checkoutStatusOf(
  status: PaymentStatus,
  failureReason: string | null,
): CheckoutStatus {
  if (status === 'pending') return 'created';
  if (status === 'failed' && failureReason === EXPIRED) return 'expired';
  if (status === 'failed' && failureReason === CANCELLED) return 'cancelled';
  return status;
}

/** Attempts still waiting for an outcome. */
export const OPEN_STATUSES: readonly PaymentStatus[] = ['pending', 'processing'];

export function isOpen(status: PaymentStatus): boolean {
  return OPEN_STATUSES.includes(status);
}
