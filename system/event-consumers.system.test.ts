import { randomBytes } from 'node:crypto';
import { jetstreamManager, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { DurableConsumers, PaymentEvent, Streams, WebhookDeliveryEvent } from '@dzpay/contracts';
import { prefixed, streamName } from '@dzpay/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidPayment } from './support/paid-payment.ts';
import { connectPartner, payProductReference } from './support/partner-merchant.ts';
import { CARDS, submitCard } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

// Every reader of PAYMENTS and WEBHOOKS is given by the server only the events it acts
// on: its durable consumer carries the catalog's filter subject, a hosted-checkout
// payment's events never reach status, its created and processing never the dispatcher.

const SECRETS_KEY = randomBytes(32).toString('base64');
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let stack: Stack;
let partner: PartnerServer;
let jsm: JetStreamManager;

beforeAll(async () => {
  partner = await startPartnerServer({ signingSecret: SIGNING_SECRET });
  stack = await startStack(
    'event-consumers',
    { SECRETS_KEY, RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: true, withStatus: true, withWebhooks: { SECRETS_KEY } },
  );
  jsm = await jetstreamManager(stack.gateway.runtime.nats);
});
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
});

type Routed = { type: string; data: { channel: string; referenceKind?: string } };

/**
 * What each durable consumer's service acts on (what its code does not drop): status
 * builds records of AGENCY attempts only (attemptUpdateOf), the dispatcher sends the
 * webhooks of decided payments (webhookOf), qr-config clears the single-use QR codes a
 * payment paid (singleUseClearing).
 */
const actsOn: Record<keyof typeof DurableConsumers, (event: Routed) => boolean> = {
  statusPayments: (event) => event.data.channel === 'AGENCY',
  statusWebhooks: (event) => event.data.channel === 'AGENCY',
  dispatcherPayments: (event) =>
    ['payment.succeeded', 'payment.failed', 'payment.refunded'].includes(event.type),
  qrConfigSingleUse: (event) =>
    event.type === 'payment.succeeded' &&
    event.data.channel === 'AGENCY' &&
    event.data.referenceKind === 'qr',
};
const readers = Object.entries(DurableConsumers).map(([key, consumer]) => ({
  ...consumer,
  acts: actsOn[key as keyof typeof DurableConsumers],
}));

const streamOf = (key: 'payments' | 'webhooks') =>
  streamName(stack.infra.natsPrefix, Streams[key].name);
const consumerOf = (reader: (typeof readers)[number]): Promise<ConsumerInfo> =>
  jsm.consumers.info(streamOf(reader.stream), reader.durable);

/** Every event on one of this run's streams, in stream order. */
async function eventsOn(key: 'payments' | 'webhooks') {
  const stream = streamOf(key);
  const { state } = await jsm.streams.info(stream);
  const events: Routed[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq += 1) {
    const json: unknown = (await jsm.streams.getMessage(stream, { seq }))?.json();
    events.push(key === 'payments' ? PaymentEvent.parse(json) : WebhookDeliveryEvent.parse(json));
  }
  return events;
}

/** A hosted checkout paid, a partner's product paid, a single-use QR code paid. */
async function payEachWay(merchant: { id: string; testKey: string }): Promise<void> {
  await paidPayment(stack, merchant.testKey, { amount: 120_000, reference: 'ORDER-EC1' });
  await payProductReference(stack, merchant.id, 'BOOK-EC1', CARDS.approved);

  const token = await stack.qrCode(merchant.id);
  const set = await stack.post(
    '/set-qr-config',
    { token, amounts: [750], singleUse: true },
    { 'x-api-key': merchant.testKey },
  );
  expect(set.status).toBe(200);
  const started = await fetch(`${stack.gateway.url}/qr/${token}?lang=fr`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ choice: '0' }).toString(),
    redirect: 'manual',
  });
  const checkoutUrl = new URL(started.headers.get('location')!, stack.gateway.url).href.split(
    '?',
  )[0]!;
  const pressed = await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
  const back = await submitCard(pressed.headers.get('location')!, CARDS.approved);
  await fetch(back.headers.get('location')!, { redirect: 'manual' });
  await expect
    .poll(async () => (await stack.readQr(token)).state, { timeout: 10_000 })
    .toBe('none');
}

describe('the durable consumers of PAYMENTS and WEBHOOKS', () => {
  it('are created on the server with the filter subject of the catalog', async () => {
    for (const reader of readers) {
      const info = await consumerOf(reader);
      expect(info.config.filter_subject, reader.durable).toBe(
        prefixed(stack.infra.natsPrefix, reader.filterSubject),
      );
    }
  });

  it('are delivered every event their service acts on, and no other', async () => {
    const merchant = await stack.merchant('Event consumers', { walletId: 'W-EC' });
    await connectPartner(
      stack,
      merchant.id,
      { url: partner.url, signingSecret: SIGNING_SECRET },
      SECRETS_KEY,
    );
    await payEachWay(merchant);
    // The three payments' webhooks delivered: their WEBHOOKS events are on the way.
    await expect.poll(() => partner.webhooks.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);

    for (const reader of readers) {
      // Read again at each try: a delivery's event may still be coming.
      type Counts = {
        reader: string;
        events: number;
        actedOn: number;
        delivered: number;
        unfinished: number;
        redelivered: number;
      };
      const counts = async (): Promise<Counts> => {
        const events = await eventsOn(reader.stream);
        const info = await consumerOf(reader);
        return {
          reader: reader.durable,
          events: events.length,
          actedOn: events.filter(reader.acts).length,
          delivered: info.delivered.consumer_seq,
          unfinished: info.num_pending + info.num_ack_pending,
          redelivered: info.num_redelivered,
        };
      };
      // Everything it acts on handled, nothing else ever delivered (no redelivery either),
      // on a stream that holds events it would have dropped.
      await expect
        .poll(counts, { timeout: 15_000 })
        .toSatisfy(
          (c: Counts) =>
            c.delivered === c.actedOn &&
            c.unfinished === 0 &&
            c.redelivered === 0 &&
            c.actedOn > 0 &&
            c.actedOn < c.events,
        );
    }
  });
});
