import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { PaymentEvent, type MerchantScope } from '@dzpay/contracts';
import { prefixed, type NatsConnection } from '@dzpay/platform';

/** An ISO timestamp `ms` from now. */
export const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();

/**
 * The events payments would publish for one attempt, each a whole snapshot of it, built
 * through the contract's schema so a test can never publish what no producer could.
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
  const make = (type: string, data: Partial<PaymentEvent['data']>): PaymentEvent => {
    const snapshot = {
      paymentId,
      reference,
      channel,
      amount: 150_050,
      fees: 5_000,
      total: 155_050,
      currency: 'DZD',
      orderId: null,
      approvalCode: null,
      maskedPan: null,
      failureReason: null,
      refundedAmount: 0,
      paidAt: null,
      metadata: null,
      createdAt,
      referenceKind: channel === 'CHECKOUT' ? 'order' : referenceKind,
      epoch: 0,
      ...data,
    };
    // Hosted-checkout events carry no lock (PaymentEventData.lockExpiresAt).
    if (channel === 'CHECKOUT') delete snapshot.lockExpiresAt;
    return PaymentEvent.parse({
      id: randomUUID(),
      type,
      version: 1,
      occurredAt: new Date().toISOString(),
      ...scope,
      data: snapshot,
    });
  };
  const paidAt = new Date().toISOString();
  return {
    paymentId,
    created: (lockExpiresAt: string | null = fromNow(15 * 60_000)) =>
      make('payment.created', { status: 'pending', lockExpiresAt }),
    processing: (lockExpiresAt: string | null = fromNow(15 * 60_000)) =>
      make('payment.processing', { status: 'processing', lockExpiresAt }),
    succeeded: () =>
      make('payment.succeeded', { status: 'success', orderId, paidAt, lockExpiresAt: null }),
    failed: () =>
      make('payment.failed', {
        status: 'failed',
        orderId,
        failureReason: 'declined',
        lockExpiresAt: null,
      }),
    refunded: () =>
      make('payment.refunded', {
        status: 'refunded',
        orderId,
        paidAt,
        refundedAmount: 155_050,
        lockExpiresAt: null,
      }),
  };
}

/**
 * Publishes like the payments relay: the event's subject, its id as Nats-Msg-Id.
 * `msgID` lets a test republish an event as if the stream's deduplication window passed.
 */
export async function publish(
  nc: NatsConnection,
  prefix: string,
  event: PaymentEvent,
  msgID = event.id,
): Promise<void> {
  const subject = prefixed(prefix, `payments.events.${event.type}`);
  await jetstream(nc).publish(subject, JSON.stringify(event), { msgID });
}

/** Publishes a message on the stream that no reader can parse. */
export async function publishGarbage(nc: NatsConnection, prefix: string): Promise<void> {
  await jetstream(nc).publish(prefixed(prefix, 'payments.events.payment.created'), '{"nope":', {
    msgID: randomUUID(),
  });
}
