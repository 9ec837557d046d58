import { randomUUID } from 'node:crypto';
import type { PaymentEventType } from '@dzpay/contracts';
import { writeOutbox, type OutboxEvent, type Tx } from '@dzpay/platform';
import { paymentEvent, type PaymentRecord } from '../domain/payment-record.ts';

/**
 * The outbox row of a payment's new state, with its own id. `refundAmount` (centimes),
 * for `payment.refunded`, goes beside the payment's data: what this refund gave back,
 * while `refundedAmount` is the total so far. The webhook dispatcher reads both.
 */
export function paymentEventRow(
  type: PaymentEventType,
  record: PaymentRecord,
  occurredAt: Date,
  extra: { refundAmount?: number } = {},
): OutboxEvent {
  const event = paymentEvent(randomUUID(), type, record, occurredAt);
  const payload =
    extra.refundAmount === undefined
      ? event
      : { ...event, data: { ...event.data, refundAmount: extra.refundAmount } };
  return { id: event.id, payload };
}

/** Writes the event of a payment's new state to the outbox inside the caller's transaction. */
export function paymentEventWriter(clock: () => Date) {
  return async (
    tx: Tx,
    type: PaymentEventType,
    record: PaymentRecord,
    extra: { refundAmount?: number } = {},
  ): Promise<void> => {
    await writeOutbox(tx, paymentEventRow(type, record, clock(), extra));
  };
}
