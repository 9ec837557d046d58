import { z } from 'zod';
import { MerchantScope } from '../scope.ts';
import { WebhookType } from './webhook-types.ts';

/**
 * The events dzpay took in for a merchant, each with its delivery, newest first
 * (`GET /api/v1/events`), and one delivered again: views and the NATS requests behind them.
 */

/** A delivery of an event, as the events list summarizes it. */
const EventDeliverySummary = z.object({
  id: z.uuid(),
  status: z.enum(['pending', 'success', 'fail']),
  attempts: z.int().nonnegative(),
  lastStatusCode: z.int().nullable(),
});

/** One event dzpay took in for the merchant (`GET /api/v1/events`). */
export const WebhookEventView = z.object({
  id: z.uuid(),
  type: WebhookType,
  createdAt: z.iso.datetime(),
  paymentId: z.uuid().nullable(),
  /** The webhook body's `data`, as sent (or as it would be sent). */
  data: z.record(z.string(), z.unknown()),
  delivery: EventDeliverySummary.nullable(),
});
export type WebhookEventView = z.infer<typeof WebhookEventView>;

export const EVENTS_PAGE_MAX = 100;

/** `GET /api/v1/events`: a page size, the previous page's cursor, a type and a payment. */
export const WebhookEventsQuery = z.strictObject({
  limit: z.coerce
    .number()
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(EVENTS_PAGE_MAX, `limit must be at most ${EVENTS_PAGE_MAX}`)
    .optional(),
  cursor: z.string().min(1).max(200).optional(),
  type: WebhookType.optional(),
  paymentId: z.uuid('paymentId must be a UUID').optional(),
});

export const WebhookEventsListRequest = MerchantScope.extend({
  limit: z.int().min(1).max(EVENTS_PAGE_MAX),
  cursor: z.string().optional(),
  type: WebhookType.optional(),
  paymentId: z.uuid().optional(),
});
export const WebhookEventsPage = z.object({
  events: z.array(WebhookEventView),
  /** Give it as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type WebhookEventsPage = z.infer<typeof WebhookEventsPage>;

export const WebhookEventReplayRequest = MerchantScope.extend({ eventId: z.string() });
