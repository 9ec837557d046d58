import { z } from 'zod';
import { PaymentEventTypes, ReferenceKind, type PaymentEventType } from './events.ts';
import { WebhookDeliveryEventTypes } from './webhooks/deliveries.ts';

/**
 * The subjects of the events on PAYMENTS and WEBHOOKS, made from the event itself: the
 * outbox writes and its relay publishes on them, and each reader's filter is made of the
 * same tokens. Whom an event concerns comes before what happened, so that each reader
 * asks the server, in the one filter subject a NATS 2.9 consumer takes, for exactly the
 * events it acts on (DurableConsumers):
 *
 *   payments.events.<channel>.<kind>.<phase>.<type>  payments.events.agency.qr.decided.payment.succeeded
 *   webhooks.events.<channel>.<type>                 webhooks.events.checkout.webhook.delivery.failed
 *
 * channel: `agency` or `checkout`; kind: what the reference names (`order`, `product`,
 * `qr`); phase: `open` (created, processing) or `decided` (succeeded, failed, refunded:
 * the states a webhook tells).
 */

type Channel = 'AGENCY' | 'CHECKOUT';

/** Where a payment stands in an event: still open, or decided (a webhook tells it). */
export type PaymentPhase = 'open' | 'decided';

const PHASES: Record<PaymentEventType, PaymentPhase> = {
  [PaymentEventTypes.created]: 'open',
  [PaymentEventTypes.processing]: 'open',
  [PaymentEventTypes.succeeded]: 'decided',
  [PaymentEventTypes.failed]: 'decided',
  [PaymentEventTypes.refunded]: 'decided',
};

type WebhookDeliveryEventType =
  (typeof WebhookDeliveryEventTypes)[keyof typeof WebhookDeliveryEventTypes];

/** Payment events, some of whose tokens are known; the others are wildcards. */
export interface PaymentEventsSelector {
  channel?: Channel;
  referenceKind?: ReferenceKind;
  phase?: PaymentPhase;
  /** Decides the phase too. */
  type?: PaymentEventType;
}

/** The subject of the payment events the selector names: one event's when it names all. */
export function paymentEventsSubject(selector: PaymentEventsSelector = {}): string {
  const { channel, referenceKind, type } = selector;
  const phase = type ? PHASES[type] : selector.phase;
  const [entity, verb] = type ? type.split('.') : [];
  return subjectOf('payments.events', [channel?.toLowerCase(), referenceKind, phase, entity, verb]);
}

/** The subject of the webhook delivery events the selector names. */
export function webhookEventsSubject(
  selector: { channel?: Channel; type?: WebhookDeliveryEventType } = {},
): string {
  const [entity, what, state] = selector.type ? selector.type.split('.') : [];
  return subjectOf('webhooks.events', [selector.channel?.toLowerCase(), entity, what, state]);
}

/** What an event's subject is made of: its type, its channel, and what its reference names. */
const Routing = z.object({
  type: z.string(),
  data: z.object({
    channel: z.enum(['AGENCY', 'CHECKOUT']),
    referenceKind: ReferenceKind.optional(),
  }),
});

const isPaymentEventType = (type: string): type is PaymentEventType => type in PHASES;
const isWebhookDeliveryType = (type: string): type is WebhookDeliveryEventType =>
  (Object.values(WebhookDeliveryEventTypes) as string[]).includes(type);

/**
 * The subject of a payment or webhook delivery event on its stream; throws for anything
 * else. An event written before events named their reference's kind is an order when it
 * is a checkout's, a product otherwise (as status reads it).
 */
export function subjectOfEvent(event: unknown): string {
  const { type, data } = Routing.parse(event);
  if (isPaymentEventType(type)) {
    const referenceKind = data.referenceKind ?? (data.channel === 'CHECKOUT' ? 'order' : 'product');
    return paymentEventsSubject({ channel: data.channel, referenceKind, type });
  }
  if (isWebhookDeliveryType(type)) return webhookEventsSubject({ channel: data.channel, type });
  throw new Error(`no stream carries events of type ${type}`);
}

/**
 * The subjects events had before they named whom they concern (`payments.events.<type>`).
 * Streams still hold such events until they age out; a reader narrows to its filter only
 * once none lies ahead of it (libs/platform/src/durable-consumer.ts).
 */
export const FORMER_PAYMENT_EVENT_SUBJECTS = 'payments.events.payment.>';
export const FORMER_WEBHOOK_EVENT_SUBJECTS = 'webhooks.events.webhook.>';

/** Joins the tokens, `*` for an unknown one; unknown tokens at the end become one `>`. */
function subjectOf(root: string, tokens: (string | undefined)[]): string {
  const known = [...tokens];
  while (known.length > 0 && known.at(-1) === undefined) known.pop();
  const tail = known.length < tokens.length ? ['>'] : [];
  return [root, ...known.map((token) => token ?? '*'), ...tail].join('.');
}
