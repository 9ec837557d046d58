import { z } from 'zod';
import { MerchantScope, Mode } from '../scope.ts';
import { WebhookType } from './webhook-types.ts';

/**
 * Each delivery of a webhook and every attempt at it: the events the dispatcher
 * publishes as a delivery moves, the views the merchant API shows, and the NATS requests
 * that list and replay them.
 */

/** Delivery states of a payment's outcome webhook, as the status record shows them. */
export const WebhookDeliveryEventTypes = {
  pending: 'webhook.delivery.pending',
  succeeded: 'webhook.delivery.succeeded',
  failed: 'webhook.delivery.failed',
} as const;

/** Published on the WEBHOOKS stream (subject `webhooks.events.<type>`), event id = Nats-Msg-Id. */
export const WebhookDeliveryEvent = z.object({
  id: z.uuid(),
  type: z.enum([
    'webhook.delivery.pending',
    'webhook.delivery.succeeded',
    'webhook.delivery.failed',
  ]),
  version: z.literal(1),
  occurredAt: z.iso.datetime(),
  merchantId: z.uuid(),
  mode: Mode,
  data: z.object({
    deliveryId: z.uuid(),
    /** The payment event the webhook tells of (also the webhook's own id). */
    eventId: z.uuid(),
    paymentId: z.uuid(),
    reference: z.string(),
    channel: z.enum(['CHECKOUT', 'AGENCY']),
    state: z.enum(['pending', 'success', 'fail']),
    attempts: z.int().nonnegative(),
  }),
});
export type WebhookDeliveryEvent = z.infer<typeof WebhookDeliveryEvent>;

export function webhookEventSubject(type: WebhookDeliveryEvent['type']): string {
  return `webhooks.events.${type}`;
}

/** One try at delivering a webhook, as the merchant API shows it. */
const DeliveryAttemptView = z.object({
  number: z.int().positive(),
  startedAt: z.iso.datetime(),
  statusCode: z.int().nullable(),
  latencyMs: z.int().nullable(),
  /** The start of what the partner answered (at most 1 KB). */
  responseExcerpt: z.string().nullable(),
  error: z.string().nullable(),
});

/** A payment outcome's webhook and every attempt at it. */
export const DeliveryView = z.object({
  id: z.uuid(),
  eventId: z.uuid(),
  eventType: WebhookType,
  paymentId: z.uuid(),
  reference: z.string(),
  state: z.enum(['pending', 'success', 'fail']),
  attempts: z.array(DeliveryAttemptView),
  nextAttemptAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type DeliveryView = z.infer<typeof DeliveryView>;

export const DeliveriesOfPaymentRequest = MerchantScope.extend({ paymentId: z.string() });
export const DeliveriesOfPaymentReply = z.object({ deliveries: z.array(DeliveryView) });
export const DeliveryReplayRequest = MerchantScope.extend({ deliveryId: z.string() });
