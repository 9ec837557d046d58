import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import {
  paymentEventsSubject,
  PaymentEventTypes,
  type MerchantScope,
  type PaymentEvent,
  type PaymentEventType,
} from '@dzpay/contracts';
import { prefixed, type NatsConnection } from '@dzpay/platform';
import { paymentEvent } from '@dzpay/testkit/payment-events';

/** Publishes like the payments relay. */
export { publishPaymentEvent as publish } from '@dzpay/testkit/payment-events';

/** An ISO timestamp `ms` from now. */
export const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();

/**
 * The events payments would publish for one attempt, each a whole snapshot of it (see
 * paymentEvent); hosted-checkout ones carry no lock (PaymentEventData.lockExpiresAt).
 */
export function attemptEvents(
  scope: MerchantScope,
  reference: string,
  channel: 'AGENCY' | 'CHECKOUT' = 'AGENCY',
  referenceKind: 'product' | 'qr' = 'product',
) {
  const paymentId = randomUUID();
  const createdAt = new Date().toISOString();
  const orderId = `ORD-${paymentId.slice(0, 8)}`;
  const make = (type: PaymentEventType, data: Partial<PaymentEvent['data']>) =>
    paymentEvent(scope, type, {
      paymentId,
      reference,
      channel,
      createdAt,
      referenceKind: channel === 'CHECKOUT' ? 'order' : referenceKind,
      epoch: 0,
      ...data,
      ...(channel === 'CHECKOUT' ? { lockExpiresAt: undefined } : {}),
    });
  const paidAt = new Date().toISOString();
  return {
    paymentId,
    created: (lockExpiresAt: string | null = fromNow(15 * 60_000)) =>
      make('payment.created', { lockExpiresAt }),
    processing: (lockExpiresAt: string | null = fromNow(15 * 60_000)) =>
      make('payment.processing', { lockExpiresAt }),
    succeeded: () => make('payment.succeeded', { orderId, paidAt, lockExpiresAt: null }),
    failed: () => make('payment.failed', { orderId, lockExpiresAt: null }),
    refunded: () =>
      make('payment.refunded', {
        orderId,
        paidAt,
        refundedAmount: 155_050,
        lockExpiresAt: null,
      }),
  };
}

/** Publishes a message that no reader can parse, on a subject status reads. */
export async function publishGarbage(nc: NatsConnection, prefix: string): Promise<void> {
  const subject = paymentEventsSubject({
    channel: 'AGENCY',
    referenceKind: 'product',
    type: PaymentEventTypes.created,
  });
  await jetstream(nc).publish(prefixed(prefix, subject), '{"nope":', { msgID: randomUUID() });
}
