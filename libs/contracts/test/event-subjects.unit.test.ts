import { describe, expect, it } from 'vitest';
import { paymentEventsSubject, subjectOfEvent } from '../src/event-subjects.ts';
import { PaymentEventTypes } from '../src/events.ts';
import { DurableConsumers, Streams } from '../src/streams.ts';
import { WebhookDeliveryEventTypes } from '../src/webhooks/deliveries.ts';

/** NATS subject matching: `*` is one token, a final `>` one or more. */
function matches(filter: string, subject: string): boolean {
  const wanted = filter.split('.');
  const tokens = subject.split('.');
  for (const [i, token] of wanted.entries()) {
    if (token === '>') return tokens.length > i;
    if (i >= tokens.length || (token !== '*' && token !== tokens[i])) return false;
  }
  return wanted.length === tokens.length;
}

interface Routed {
  type: string;
  data: { channel: 'AGENCY' | 'CHECKOUT'; referenceKind?: 'order' | 'product' | 'qr' };
}

const references = [
  { channel: 'CHECKOUT', referenceKind: 'order' },
  { channel: 'AGENCY', referenceKind: 'product' },
  { channel: 'AGENCY', referenceKind: 'qr' },
  // Written before events named their reference's kind.
  { channel: 'CHECKOUT' },
  { channel: 'AGENCY' },
] as const;
const paymentEvents: Routed[] = Object.values(PaymentEventTypes).flatMap((type) =>
  references.map((data) => ({ type, data })),
);
const deliveryEvents: Routed[] = Object.values(WebhookDeliveryEventTypes).flatMap((type) =>
  (['AGENCY', 'CHECKOUT'] as const).map((channel) => ({ type, data: { channel } })),
);
const decided = new Set<string>([
  PaymentEventTypes.succeeded,
  PaymentEventTypes.failed,
  PaymentEventTypes.refunded,
]);

/** What each reader acts on (its service's code), which its filter must select exactly. */
const actsOn: Record<keyof typeof DurableConsumers, (event: Routed) => boolean> = {
  statusPayments: (event) => event.data.channel === 'AGENCY',
  statusWebhooks: (event) => event.data.channel === 'AGENCY',
  dispatcherPayments: (event) => decided.has(event.type),
  qrConfigSingleUse: (event) =>
    event.type === PaymentEventTypes.succeeded && event.data.referenceKind === 'qr',
};

describe('the subject of an event', () => {
  it('names its channel, its kind and its phase before its type', () => {
    const event = { type: 'payment.succeeded', data: { channel: 'AGENCY', referenceKind: 'qr' } };
    expect(subjectOfEvent(event)).toBe('payments.events.agency.qr.decided.payment.succeeded');
    expect(subjectOfEvent({ type: 'payment.created', data: { channel: 'CHECKOUT' } })).toBe(
      'payments.events.checkout.order.open.payment.created',
    );
    expect(subjectOfEvent({ type: 'payment.processing', data: { channel: 'AGENCY' } })).toBe(
      'payments.events.agency.product.open.payment.processing',
    );
    expect(subjectOfEvent({ type: 'webhook.delivery.failed', data: { channel: 'CHECKOUT' } })).toBe(
      'webhooks.events.checkout.webhook.delivery.failed',
    );
  });

  it('lies on its stream, never under the subjects events had before', () => {
    for (const [events, stream] of [
      [paymentEvents, Streams.payments],
      [deliveryEvents, Streams.webhooks],
    ] as const) {
      for (const event of events) {
        const subject = subjectOfEvent(event);
        expect(
          stream.subjects.some((filter) => matches(filter, subject)),
          subject,
        ).toBe(true);
        expect(
          stream.formerSubjects.some((former) => matches(former, subject)),
          subject,
        ).toBe(false);
      }
    }
  });

  it('is refused to what no stream carries', () => {
    expect(() => subjectOfEvent({ type: 'payment.lost', data: { channel: 'AGENCY' } })).toThrow(
      /payment.lost/,
    );
    expect(() => subjectOfEvent({ type: 'payment.created' })).toThrow();
  });

  it('selects with wildcards what a selector leaves out', () => {
    expect(paymentEventsSubject()).toBe('payments.events.>');
    expect(paymentEventsSubject({ phase: 'decided' })).toBe('payments.events.*.*.decided.>');
    expect(paymentEventsSubject({ type: PaymentEventTypes.created })).toBe(
      'payments.events.*.*.open.payment.created',
    );
  });
});

describe("each durable consumer's filter subject", () => {
  it('selects exactly the events its reader acts on', () => {
    for (const [key, consumer] of Object.entries(DurableConsumers)) {
      const events = consumer.stream === 'payments' ? paymentEvents : deliveryEvents;
      const acts = actsOn[key as keyof typeof DurableConsumers];
      const selected = events.filter((event) =>
        matches(consumer.filterSubject, subjectOfEvent(event)),
      );
      expect(selected, key).toEqual(events.filter(acts));
      expect(selected.length, `${key} reads something`).toBeGreaterThan(0);
      expect(selected.length, `${key} is filtered`).toBeLessThan(events.length);
    }
  });

  it('has a name of its own', () => {
    const names = Object.values(DurableConsumers).map((c) => `${c.stream}/${c.durable}`);
    expect(new Set(names).size).toBe(names.length);
  });
});
