import { randomUUID } from 'node:crypto';
import { signWebhook, standardWebhookSignature } from '../src/index.ts';

/** A `payment.success` body as dzpay's dispatcher sends it, with a fresh event id. */
export function successEvent(overrides: { id?: string; reference?: string } = {}) {
  return {
    id: overrides.id ?? randomUUID(),
    type: 'payment.success',
    createdAt: '2025-03-14T09:26:53.000Z',
    data: {
      paymentId: randomUUID(),
      reference: overrides.reference ?? 'BOOK-42',
      channel: 'AGENCY',
      amount: 1500.5,
      currency: 'DZD',
      status: 'success',
      orderId: 'ORDER-1',
      paidAt: '2025-03-14T09:26:52.000Z',
      metadata: { shelf: 'B' },
      failureReason: null,
    },
  };
}

export const unixNow = (now = new Date()) => Math.floor(now.getTime() / 1000);

/** Every header dzpay sends with a webhook, signed with `secret`. */
export function dzpayHeaders(
  rawBody: string,
  secret: string,
  timestamp = unixNow(),
  id = 'evt-1',
): Record<string, string> {
  return {
    'content-type': 'application/json',
    authorization: 'Bearer api-secret',
    'x-timestamp': String(timestamp),
    'x-signature': signWebhook(rawBody, timestamp, secret),
    'x-event-id': id,
    'x-event-type': 'payment.success',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(id, timestamp, rawBody, secret),
  };
}

/** Only dzpay's own pair, for tests of that scheme alone. */
export function xHeaders(rawBody: string, secret: string, timestamp = unixNow()) {
  return {
    'x-timestamp': String(timestamp),
    'x-signature': signWebhook(rawBody, timestamp, secret),
  };
}

/** Only the Standard Webhooks headers. */
export function standardHeaders(
  rawBody: string,
  secrets: string[],
  timestamp = unixNow(),
  id = 'evt-1',
) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets
      .map((secret) => standardWebhookSignature(id, timestamp, rawBody, secret))
      .join(' '),
  };
}
