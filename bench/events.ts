import type { MerchantScope, PaymentEvent, PaymentEventType } from '@dzpay/contracts';
// Relative until @dzpay/testkit exports its payment-event fixture on a path free of vitest.
import { paymentEvent } from '@dzpay/testkit/payment-events';

export { publishPaymentEvent } from '@dzpay/testkit/payment-events';

/**
 * A synthetic AGENCY attempt on `reference` of 2 500 DZD plus a 50 DZD fee, as payments
 * would publish it, no order id: parsed by the contract, so the bench never publishes
 * what no producer could. `data` adds to the snapshot (a lock, say).
 */
export function benchEvent(
  scope: MerchantScope,
  type: PaymentEventType,
  reference: string,
  data: Partial<PaymentEvent['data']> = {},
): PaymentEvent {
  return paymentEvent(scope, type, {
    reference,
    amount: 250_000,
    fees: 5_000,
    total: 255_000,
    orderId: null,
    ...data,
  });
}
