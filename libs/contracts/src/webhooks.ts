import { z } from 'zod';
import { MerchantScope, Mode } from './scope.ts';

/**
 * A merchant's partner server as dzpay's services other than the gateway need it, kept
 * current by the gateway in the NATS KV bucket `<prefix>_PARTNERS` under the key
 * `<merchantId>.<mode>`. Secrets stay sealed (libs/platform sealSecret, under
 * SECRETS_KEY, bound to `partnerSecretOwner(merchantId, mode)` for the API secret and
 * `signingSecretOwner(merchantId, mode)` for signing secrets).
 */
export const PartnerDirectoryEntry = z.object({
  merchantId: z.uuid(),
  mode: Mode,
  /** The partner's API (product lookups); null for a merchant that only set a webhook URL. */
  apiUrl: z.url().nullable(),
  /** base64 of the sealed API secret (sent as `Authorization: Bearer`); null with apiUrl. */
  apiSecretSealed: z.string().nullable(),
  /** Where webhooks go when the merchant chose it; absent or null: `{apiUrl}/webhooks/platform`. */
  webhookUrl: z.url().nullable().optional(),
  /** The webhook kinds the merchant wants; absent: DEFAULT_WEBHOOK_EVENTS. */
  webhookEvents: z.array(z.string()).optional(),
  /**
   * Webhook signing secrets, newest first, each base64 of its sealed value. The first
   * signs X-Signature; all of them sign webhook-signature, so a rotation has a grace
   * period. `validUntil` null means no end.
   */
  signingSecrets: z.array(
    z.object({ sealed: z.string(), validUntil: z.iso.datetime().nullable() }),
  ),
  /**
   * When the endpoint (or its merchant) last changed, in ms: gateway replicas publishing
   * at once never replace a newer entry with an older one.
   */
  version: z.number().int().nonnegative().optional(),
});
export type PartnerDirectoryEntry = z.infer<typeof PartnerDirectoryEntry>;

export const Buckets = { partners: 'PARTNERS' } as const;

export function partnerDirectoryKey(merchantId: string, mode: Mode): string {
  return `${merchantId}.${mode}`;
}

/** The webhook kinds a merchant may ask for (`events` of the webhook settings). */
export const WebhookEventKind = z.enum(['payment.success', 'payment.fail', 'payment.refunded']);
export type WebhookEventKind = z.infer<typeof WebhookEventKind>;

/** What an endpoint receives when it never chose: the spec's two outcomes. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEventKind[] = [
  'payment.success',
  'payment.fail',
];

/** Every webhook type dzpay sends: the kinds, and `webhook.test` (asked for, never filtered). */
export const WebhookType = z.enum([...WebhookEventKind.options, 'webhook.test']);
export type WebhookType = z.infer<typeof WebhookType>;

/**
 * What payments adds to a `payment.refunded` event beyond PaymentEventData: the amount
 * of this one refund (centimes). Read from the raw event, as PaymentEventData drops it.
 */
export const RefundEventExtra = z.object({
  data: z.object({ refundAmount: z.int().positive().optional() }),
});

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
export const DeliveryAttemptView = z.object({
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
