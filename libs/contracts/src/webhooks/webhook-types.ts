import { z } from 'zod';

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
