import { z } from 'zod';

/**
 * The event kinds dzpay sends to `POST {API_URL}/webhooks/platform`: the spec's two,
 * `payment.refunded` to endpoints that asked for it, and `webhook.test` when the merchant
 * sends a test event.
 */
export const WebhookEventTypes = {
  success: 'payment.success',
  fail: 'payment.fail',
  refunded: 'payment.refunded',
  test: 'webhook.test',
} as const;

const timestamp = z.iso.datetime({ offset: true });

/**
 * The body of every webhook (ARCHITECTURE §6). Fields dzpay may add later are dropped,
 * not refused, so an older SDK keeps accepting newer events.
 */
export const WebhookEvent = z.object({
  /** The event's id: the same on every retry and replay of one event, so dedup on it. */
  id: z.string().min(1),
  type: z.enum([WebhookEventTypes.success, WebhookEventTypes.fail, WebhookEventTypes.refunded]),
  createdAt: timestamp,
  data: z.object({
    /** dzpay's id of the attempt; the status endpoint shows the same paymentId. */
    paymentId: z.string().min(1),
    /** The product reference (AGENCY) or the merchant's order reference (CHECKOUT). */
    reference: z.string(),
    channel: z.enum(['AGENCY', 'CHECKOUT']),
    /** In dinars (DZD), with at most two decimals, as the product lookup answered it. */
    amount: z.number(),
    currency: z.literal('DZD'),
    /** The attempt's status (`success`, `failed`, ...): for diagnostics; the set may grow. */
    status: z.string(),
    /** The card network's order id, once the attempt reached a final state. */
    orderId: z.string().nullable(),
    paidAt: timestamp.nullable(),
    metadata: z.record(z.string(), z.json()).nullable(),
    /** Why a `payment.fail` failed (declined, expired, cancelled, ...); null on success. */
    failureReason: z.string().nullable(),
    /** `payment.refunded`: the payment's refunded total after this refund (DZD); `amount` is this refund. */
    refundedAmount: z.number().optional(),
  }),
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/**
 * The event a merchant sends from the dashboard or `POST /api/v1/webhooks/test` to check
 * the endpoint and its signing secret. Signed like the others; about no payment.
 */
export const WebhookTestEvent = z.object({
  id: z.string().min(1),
  type: z.literal(WebhookEventTypes.test),
  createdAt: timestamp,
  data: z.object({ message: z.string() }),
});
export type WebhookTestEvent = z.infer<typeof WebhookTestEvent>;
