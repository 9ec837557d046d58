import { PaymentEventTypes, type PaymentEvent } from '@dzpay/contracts';
import { WebhookEventTypes, type WebhookEvent } from '@dzpay/partner-sdk';

export type WebhookType = WebhookEvent['type'];

/** What one payment outcome sends: the webhook's type and its body, serialized once. */
export interface WebhookOf {
  type: WebhookType;
  /** The exact bytes signed and sent on every attempt. */
  body: string;
}

/**
 * The §6 body of a payment outcome, or null for an event that is no outcome (created,
 * processing, refunded). The webhook's id is the payment event's id, so every retry and
 * replay carries the id partners deduplicate on. Amounts go out in dinars.
 */
export function webhookOf(event: PaymentEvent): WebhookOf | null {
  const type = typeOf(event.type);
  if (type === null) return null;
  const { data } = event;
  const webhook: WebhookEvent = {
    id: event.id,
    type,
    createdAt: event.occurredAt,
    data: {
      paymentId: data.paymentId,
      reference: data.reference,
      channel: data.channel,
      amount: data.amount / 100,
      currency: 'DZD',
      status: data.status,
      orderId: data.orderId,
      paidAt: type === WebhookEventTypes.success ? data.paidAt : null,
      metadata: data.metadata,
      failureReason: type === WebhookEventTypes.fail ? data.failureReason : null,
    },
  };
  return { type, body: JSON.stringify(webhook) };
}

function typeOf(type: string): WebhookType | null {
  if (type === PaymentEventTypes.succeeded) return WebhookEventTypes.success;
  if (type === PaymentEventTypes.failed) return WebhookEventTypes.fail;
  return null;
}
