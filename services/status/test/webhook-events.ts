import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import {
  subjectOfEvent,
  WebhookDeliveryEvent,
  webhookEventsSubject,
  WebhookDeliveryEventTypes,
  type MerchantScope,
} from '@dzpay/contracts';
import { prefixed, type NatsConnection } from '@dzpay/platform';

const types = {
  pending: 'webhook.delivery.pending',
  success: 'webhook.delivery.succeeded',
  fail: 'webhook.delivery.failed',
} as const;

/**
 * The events the webhook dispatcher would publish for one payment's outcome webhook,
 * built through the contract's schema.
 */
export function deliveryEvents(
  scope: MerchantScope,
  reference: string,
  paymentId: string,
  channel: 'AGENCY' | 'CHECKOUT' = 'AGENCY',
) {
  const deliveryId = randomUUID();
  const eventId = randomUUID();
  let attempts = 0;
  return (state: WebhookDeliveryEvent['data']['state']): WebhookDeliveryEvent =>
    WebhookDeliveryEvent.parse({
      id: randomUUID(),
      type: types[state],
      version: 1,
      occurredAt: new Date().toISOString(),
      ...scope,
      data: { deliveryId, eventId, paymentId, reference, channel, state, attempts: ++attempts },
    });
}

/** Publishes like the dispatcher: the event's subject, its id as Nats-Msg-Id. */
export async function publishDelivery(
  nc: NatsConnection,
  prefix: string,
  event: WebhookDeliveryEvent,
  msgID = event.id,
): Promise<void> {
  const subject = prefixed(prefix, subjectOfEvent(event));
  await jetstream(nc).publish(subject, JSON.stringify(event), { msgID });
}

/** Publishes a message on WEBHOOKS that no reader can parse, on a subject status reads. */
export async function publishDeliveryGarbage(nc: NatsConnection, prefix: string): Promise<void> {
  const subject = webhookEventsSubject({
    channel: 'AGENCY',
    type: WebhookDeliveryEventTypes.pending,
  });
  await jetstream(nc).publish(prefixed(prefix, subject), '[', { msgID: randomUUID() });
}
