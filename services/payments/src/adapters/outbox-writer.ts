import { randomUUID } from 'node:crypto';
import { paymentEventSubject, type PaymentEventType } from '@dzpay/contracts';
import { traceCarrier, type Tx } from '@dzpay/platform';
import { paymentEvent, type PaymentRecord } from '../domain/payment-record.ts';

/**
 * Writes a payment event to the outbox inside the caller's transaction, so the event
 * exists exactly when the state change it tells of does; the relay publishes it.
 */
export function outboxWriter(clock: () => Date) {
  return async (tx: Tx, type: PaymentEventType, record: PaymentRecord): Promise<void> => {
    const event = paymentEvent(randomUUID(), type, record, clock());
    await tx`insert into outbox (id, subject, payload, trace_carrier)
             values (${event.id}, ${paymentEventSubject(type)}, ${tx.json(event)},
               ${tx.json(traceCarrier())})`;
  };
}
