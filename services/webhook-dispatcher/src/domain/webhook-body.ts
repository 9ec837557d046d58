import {
  DEFAULT_WEBHOOK_EVENTS,
  PaymentEventTypes,
  type PaymentEvent,
  type WebhookType,
} from '@dzpay/contracts';

export type { WebhookType };

/** What one event sends: the webhook's type and its body, serialized once. */
export interface WebhookOf {
  type: WebhookType;
  /** The exact bytes signed and sent on every attempt. */
  body: string;
}

/**
 * The §6 body of a payment event, or null for an event that is no webhook (created,
 * processing). The webhook's id is the payment event's id, so every retry and replay
 * carries the id partners deduplicate on. Amounts go out in dinars. A refund's `amount`
 * is what this refund gave back (`refundAmount`, centimes, from payments; an event
 * without it, written before, was a full refund: the refunded total) and
 * `refundedAmount` the payment's refunded total after it.
 */
export function webhookOf(event: PaymentEvent, refundAmount?: number): WebhookOf | null {
  const type = typeOf(event.type);
  if (type === null) return null;
  const { data } = event;
  const refunded = type === 'payment.refunded';
  const webhook = {
    id: event.id,
    type,
    createdAt: event.occurredAt,
    data: {
      paymentId: data.paymentId,
      reference: data.reference,
      channel: data.channel,
      amount: dinars(refunded ? (refundAmount ?? data.refundedAmount) : data.amount),
      ...(refunded ? { refundedAmount: dinars(data.refundedAmount) } : {}),
      currency: 'DZD',
      status: data.status,
      orderId: data.orderId,
      paidAt: type === 'payment.fail' ? null : data.paidAt,
      metadata: data.metadata,
      failureReason: type === 'payment.fail' ? data.failureReason : null,
    },
  };
  return { type, body: JSON.stringify(webhook) };
}

/** The body of a `webhook.test` event: no payment, only a note a receiver can log. */
export function testWebhookOf(id: string, now: Date): WebhookOf {
  const webhook = {
    id,
    type: 'webhook.test',
    createdAt: now.toISOString(),
    data: { message: 'A test event sent from the dzpay API; nothing happened to any payment.' },
  };
  return { type: 'webhook.test', body: JSON.stringify(webhook) };
}

/**
 * Whether an endpoint wants a webhook of this type: the kinds it chose (the spec's two
 * when it never chose, or has no endpoint yet). A test event is always wanted: it is
 * asked for.
 */
export function wants(events: readonly string[] | undefined, type: WebhookType): boolean {
  if (type === 'webhook.test') return true;
  return (events ?? DEFAULT_WEBHOOK_EVENTS).includes(type);
}

/** The `data` of a stored body, as the events list shows it. */
export function dataOf(body: string): Record<string, unknown> {
  const parsed = JSON.parse(body) as { data?: Record<string, unknown> };
  return parsed.data ?? {};
}

const dinars = (centimes: number) => centimes / 100;

function typeOf(type: string): WebhookType | null {
  if (type === PaymentEventTypes.succeeded) return 'payment.success';
  if (type === PaymentEventTypes.failed) return 'payment.fail';
  if (type === PaymentEventTypes.refunded) return 'payment.refunded';
  return null;
}
