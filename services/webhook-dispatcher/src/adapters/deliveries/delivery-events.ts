import { randomUUID } from 'node:crypto';
import { WebhookDeliveryEventTypes, type WebhookDeliveryEvent } from '@dzpay/contracts';
import { writeOutbox, type Tx } from '@dzpay/platform';
import type { WebhookType } from '../../domain/webhook-body.ts';
import type { ClaimedDelivery } from './claimed-delivery.ts';

/** A delivery moved to `state` after `attempts` attempts. */
export interface DeliveryChange {
  delivery: Omit<ClaimedDelivery, 'body' | 'attempts' | 'scheduleBase' | 'traceCarrier'>;
  state: WebhookDeliveryEvent['data']['state'];
  attempts: number;
}

const isOutcome = (type: WebhookType) => type === 'payment.success' || type === 'payment.fail';

/**
 * The WEBHOOKS event of a delivery's new state, or null: only the webhook of a
 * payment's outcome is the status record's `payment.webhookDelivery`; a refund's or a
 * test event's delivery tells the status service nothing.
 */
function eventOf(
  { delivery, state, attempts }: DeliveryChange,
  occurredAt: Date,
): WebhookDeliveryEvent | null {
  const { paymentId, reference, channel } = delivery;
  if (!isOutcome(delivery.eventType) || paymentId === null || reference === null || !channel)
    return null;
  const type =
    state === 'success'
      ? WebhookDeliveryEventTypes.succeeded
      : state === 'fail'
        ? WebhookDeliveryEventTypes.failed
        : WebhookDeliveryEventTypes.pending;
  return {
    id: randomUUID(),
    type,
    version: 1,
    occurredAt: occurredAt.toISOString(),
    merchantId: delivery.merchantId,
    mode: delivery.mode,
    data: {
      deliveryId: delivery.id,
      eventId: delivery.eventId,
      paymentId,
      reference,
      channel,
      state,
      attempts,
    },
  };
}

/**
 * Writes the WEBHOOKS events of deliveries' new states to the outbox in the caller's
 * transaction, so the status service learns of a state exactly when it is committed.
 */
export function deliveryEventWriter(clock: () => Date) {
  return async (tx: Tx, changes: readonly DeliveryChange[]): Promise<void> => {
    const events = changes
      .map((change) => eventOf(change, clock()))
      .filter((event) => event !== null);
    await writeOutbox(tx, ...events.map((event) => ({ id: event.id, payload: event })));
  };
}
