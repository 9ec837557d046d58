import { randomUUID } from 'node:crypto';
import { jetstream, type PubAck } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  PaymentEvent,
  subjectOfEvent,
  type MerchantScope,
  type PaymentEventType,
  type PaymentStatus,
} from '@dzpay/contracts';

const STATUS_OF: Record<PaymentEventType, PaymentStatus> = {
  'payment.created': 'pending',
  'payment.processing': 'processing',
  'payment.succeeded': 'success',
  'payment.failed': 'failed',
  'payment.refunded': 'refunded',
};

/**
 * A payment event as payments would publish it, built through the contract's schema so a
 * test can never publish what no producer could: an AGENCY attempt of 1 500,50 DZD plus
 * a 50 DZD fee, in the state its type tells (a decided one with an order id, a failure
 * declined, a success paid now). `data` overrides any of it; a field given as undefined
 * is left out, as in events written before that field existed.
 */
export function paymentEvent(
  scope: MerchantScope,
  type: PaymentEventType,
  data: Partial<PaymentEvent['data']> = {},
  envelope: { id?: string; occurredAt?: string } = {},
): PaymentEvent {
  const status = STATUS_OF[type];
  const decided = status !== 'pending' && status !== 'processing';
  const now = new Date().toISOString();
  const snapshot: Record<string, unknown> = {
    paymentId: randomUUID(),
    reference: `REF-${randomUUID().slice(0, 8)}`,
    channel: 'AGENCY',
    amount: 150_050,
    fees: 5_000,
    total: 155_050,
    currency: 'DZD',
    status,
    orderId: decided ? 'ORD-1' : null,
    approvalCode: null,
    maskedPan: null,
    failureReason: status === 'failed' ? 'declined' : null,
    refundedAmount: 0,
    paidAt: status === 'success' || status === 'refunded' ? now : null,
    metadata: null,
    ...data,
  };
  for (const [key, value] of Object.entries(snapshot)) {
    if (value === undefined) delete snapshot[key];
  }
  return PaymentEvent.parse({
    id: envelope.id ?? randomUUID(),
    type,
    version: 1,
    occurredAt: envelope.occurredAt ?? now,
    ...scope,
    data: snapshot,
  });
}

/**
 * Publishes like the payments relay: the event's subject under the deployment prefix,
 * its id as Nats-Msg-Id unless `msgID` says otherwise (a republish past the stream's
 * deduplication window).
 */
export function publishPaymentEvent(
  nc: NatsConnection,
  prefix: string,
  event: PaymentEvent,
  msgID = event.id,
): Promise<PubAck> {
  const subject = `${prefix}.${subjectOfEvent(event)}`;
  return jetstream(nc).publish(subject, JSON.stringify(event), { msgID });
}
