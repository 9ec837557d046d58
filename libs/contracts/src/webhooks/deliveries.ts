import { z } from 'zod';
import { pageQuery } from '../page-query.ts';
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

/** Published on the WEBHOOKS stream (its subject: subjectOfEvent), event id = Nats-Msg-Id. */
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

// ---- Every delivery of the merchant's webhooks (`GET /api/v1/webhooks/deliveries`) ----

/** Most deliveries one page holds; 20 when the query gives no limit. */
const DELIVERIES_PAGE_MAX = 100;

/**
 * What became of a delivery, as merchants filter by it: `delivered` (the partner
 * acknowledged it), `failing` (not acknowledged yet and still retried on its schedule,
 * its first attempt included), `given_up` (its schedule ran out without an acknowledgement:
 * only a replay sends it again).
 */
const DeliveryOutcome = z.enum(['delivered', 'failing', 'given_up'], {
  error: 'outcome must be delivered, failing or given_up',
});

const day = (field: string) =>
  z.iso.date({ error: `${field} must be a date (YYYY-MM-DD), a day in Algiers` });

/**
 * The query of the list and the fields of its NATS request alike, the scope aside:
 * strings from a query string are read as the numbers they hold. Days are calendar days
 * in Algiers (UTC+01:00), both included.
 */
const deliveriesQueryFields = {
  ...pageQuery(DELIVERIES_PAGE_MAX),
  outcome: DeliveryOutcome.optional(),
  type: z
    .enum(WebhookType.options, {
      error: `type must be one of ${WebhookType.options.join(', ')}`,
    })
    .optional(),
  paymentId: z.uuid({ error: 'paymentId must be a UUID' }).optional(),
  from: day('from').optional(),
  to: day('to').optional(),
};

/**
 * `webhooks.deliveries.all`: one page of the merchant's deliveries in a mode, newest
 * first. Unknown fields are refused, so the merchant API's query is this without the
 * scope (`.omit({ merchantId: true, mode: true })`).
 */
export const WebhookDeliveriesListRequest = z.strictObject({
  ...MerchantScope.shape,
  ...deliveriesQueryFields,
});

/** `GET /api/v1/webhooks/deliveries`: the request above without the scope (the key gives it). */
export const WebhookDeliveriesQuery = z.strictObject(deliveriesQueryFields);

/** A delivery in the list: a test event's has no payment, so no payment id or reference. */
const DeliveryListItem = DeliveryView.extend({
  paymentId: z.uuid().nullable(),
  reference: z.string().nullable(),
});

export const WebhookDeliveriesPage = z.object({
  deliveries: z.array(DeliveryListItem),
  /** Give it as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
