import { randomUUID } from 'node:crypto';
import type { MerchantScope, PaymentEvent } from '@dzpay/contracts';
import type { NatsConnection, Sql } from '@dzpay/platform';
import { verifyWebhook } from '@dzpay/partner-sdk';
import type { IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentEvent, publishPaymentEvent } from '@dzpay/testkit/payment-events';
import {
  deliveryEvents,
  merchantWithPartner,
  POLL,
  registerMerchant,
  startDispatcherTestbed,
  startPartner,
  type Answer,
  type DispatcherTestbed,
  type Partner,
} from './fixtures.ts';

let testbed: DispatcherTestbed;
let infra: IsolatedInfra;
let nats: NatsConnection;
let db: Sql;
let key: Buffer;
let partners: Partner[];

interface DeliveryRow {
  id: string;
  state: string;
  attempts: number;
  event_type: string;
  body: string;
}
interface AttemptRow {
  number: number;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string;
  error: string | null;
  started_at: Date;
}

const deliveriesOf = (eventId: string) =>
  db<
    DeliveryRow[]
  >`select id, state, attempts, event_type, body from deliveries where event_id = ${eventId}`;
const stateOf = async (eventId: string) => (await deliveriesOf(eventId))[0]?.state;
const attemptsOf = (deliveryId: string) =>
  db<AttemptRow[]>`
    select number, status_code, latency_ms, response_excerpt, error, started_at
    from delivery_attempts where delivery_id = ${deliveryId} order by number`;

/** A merchant of its own, with a partner server answering as told. */
function merchant(
  answer?: (call: number) => Answer,
  mode: MerchantScope['mode'] = 'test',
  url?: (partner: Partner) => string,
) {
  return merchantWithPartner(nats, infra.natsPrefix, key, partners, {
    mode,
    ...(answer ? { answer } : {}),
    ...(url ? { url } : {}),
  });
}

async function send(event: PaymentEvent, msgID?: string): Promise<void> {
  await publishPaymentEvent(nats, infra.natsPrefix, event, msgID);
}

async function finalDelivery(eventId: string, state: 'success' | 'fail'): Promise<DeliveryRow> {
  await expect.poll(() => stateOf(eventId), POLL).toBe(state);
  const [delivery] = await deliveriesOf(eventId);
  return delivery!;
}

beforeAll(async () => {
  testbed = await startDispatcherTestbed('webhook-dispatcher', {
    WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200,200',
  });
  ({ infra, nats, db, key, partners } = testbed);
});
afterAll(() => testbed?.close());

describe('delivering a payment outcome', () => {
  it('delivers a success once, signed so the partner SDK accepts it, with the §6 body', async () => {
    const { scope, partner, apiSecret, signingSecret } = await merchant();
    const event = paymentEvent(scope, 'payment.succeeded', { metadata: { cart: 'c-9' } });
    await send(event);

    const delivery = await finalDelivery(event.id, 'success');
    expect(partner.received).toEqual([
      {
        id: event.id,
        type: 'payment.success',
        createdAt: event.occurredAt,
        data: {
          paymentId: event.data.paymentId,
          reference: event.data.reference,
          channel: 'AGENCY',
          amount: 1500.5,
          currency: 'DZD',
          status: 'success',
          orderId: 'ORD-1',
          paidAt: event.data.paidAt,
          metadata: { cart: 'c-9' },
          failureReason: null,
        },
      },
    ]);
    const [call] = partner.calls;
    expect(call?.path).toBe('/webhooks/platform');
    expect(call?.headers).toMatchObject({
      authorization: `Bearer ${apiSecret}`,
      'content-type': 'application/json',
      'x-event-id': event.id,
      'x-event-type': 'payment.success',
      'webhook-id': event.id,
      'webhook-timestamp': call?.headers['x-timestamp'],
    });
    // Both schemes verify on their own, and a tampered body does not.
    const headers = call!.headers;
    expect(verifyWebhook({ signingSecret, rawBody: delivery.body, headers }).ok).toBe(true);
    const standardOnly = { ...headers, 'x-signature': undefined, 'x-timestamp': undefined };
    expect(verifyWebhook({ signingSecret, rawBody: delivery.body, headers: standardOnly }).ok).toBe(
      true,
    );
    const tampered = delivery.body.replace('1500.5', '1.5');
    expect(verifyWebhook({ signingSecret, rawBody: tampered, headers }).ok).toBe(false);

    const [attempt] = await attemptsOf(delivery.id);
    expect(attempt).toMatchObject({ number: 1, status_code: 200, error: null });
    expect(attempt!.response_excerpt).toContain('"success":true');
    expect(attempt!.latency_ms).toBeGreaterThanOrEqual(0);
    await expect
      .poll(() => deliveryEvents(nats, infra.natsPrefix, delivery.id), POLL)
      .toHaveLength(2);
    // Once, even after a few more scheduler ticks.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(partner.calls).toHaveLength(1);
  });

  it('sends the API secret only to its API_URL origin, never to a URL the merchant chose elsewhere', async () => {
    // The merchant's chosen URL, on a server that is not the partner's API.
    const elsewhere = await merchant(undefined, 'test', (partner) => `${partner.url}/api`);
    const chosen = await startPartner(elsewhere.signingSecret);
    partners.push(chosen);
    const { scope, apiSecret, signingSecret } = await registerMerchant(
      nats,
      infra.natsPrefix,
      key,
      `${elsewhere.partner.url}/api`,
      { signingSecret: elsewhere.signingSecret, webhookUrl: `${chosen.url}/hooks` },
    );
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    const delivery = await finalDelivery(event.id, 'success');
    const [call] = chosen.calls;
    expect(call?.path).toBe('/hooks');
    expect(call?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(call?.headers)).not.toContain(apiSecret);
    expect(
      verifyWebhook({ signingSecret, rawBody: delivery.body, headers: call!.headers }).ok,
    ).toBe(true);
    expect(elsewhere.partner.calls).toHaveLength(0);

    // A chosen URL on the API's own origin (another path) is the partner's server: it
    // gets the Bearer as the default URL does.
    const own = await merchant(undefined, 'test');
    const sameOrigin = await registerMerchant(
      nats,
      infra.natsPrefix,
      key,
      `${own.partner.url}/api`,
      {
        signingSecret: own.signingSecret,
        webhookUrl: `${own.partner.url}/dzpay/hooks`,
      },
    );
    const second = paymentEvent(sameOrigin.scope, 'payment.succeeded');
    await send(second);
    await finalDelivery(second.id, 'success');
    expect(own.partner.calls.map((c) => [c.path, c.headers.authorization])).toEqual([
      ['/dzpay/hooks', `Bearer ${sameOrigin.apiSecret}`],
    ]);
  });

  it('sends a payment.fail with its reason', async () => {
    const { scope, partner } = await merchant();
    const event = paymentEvent(scope, 'payment.failed', { channel: 'CHECKOUT' });
    await send(event);
    await finalDelivery(event.id, 'success');
    expect(partner.received).toMatchObject([
      {
        id: event.id,
        type: 'payment.fail',
        data: { channel: 'CHECKOUT', status: 'failed', paidAt: null, failureReason: 'declined' },
      },
    ]);
  });

  it('gets through on the 4th attempt after three 500s, pending then succeeded on WEBHOOKS', async () => {
    const { scope, partner } = await merchant((call) =>
      call <= 3 ? { status: 500, body: 'boom' } : 'sdk',
    );
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);

    const delivery = await finalDelivery(event.id, 'success');
    expect(delivery.attempts).toBe(4);
    expect(partner.calls).toHaveLength(4);
    expect(partner.received.map((received) => received.id)).toEqual([event.id]);
    const attempts = await attemptsOf(delivery.id);
    expect(attempts.map((attempt) => [attempt.number, attempt.status_code, attempt.error])).toEqual(
      [
        [1, 500, 'HTTP 500'],
        [2, 500, 'HTTP 500'],
        [3, 500, 'HTTP 500'],
        [4, 200, null],
      ],
    );
    expect(attempts[0]!.response_excerpt).toBe('boom');
    for (const attempt of attempts) expect(attempt.latency_ms).toBeGreaterThanOrEqual(0);

    await expect
      .poll(
        async () =>
          (await deliveryEvents(nats, infra.natsPrefix, delivery.id)).map((e) => [
            e.type,
            e.data.state,
            e.data.attempts,
          ]),
        POLL,
      )
      .toEqual([
        ['webhook.delivery.pending', 'pending', 0],
        ['webhook.delivery.pending', 'pending', 1],
        ['webhook.delivery.pending', 'pending', 2],
        ['webhook.delivery.pending', 'pending', 3],
        ['webhook.delivery.succeeded', 'success', 4],
      ]);
  });

  it('ends in fail after the schedule when the partner always answers 500', async () => {
    const { scope, partner } = await merchant(() => ({ status: 500 }));
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    const delivery = await finalDelivery(event.id, 'fail');
    expect(delivery.attempts).toBe(4);
    expect(partner.calls).toHaveLength(4);
    const events = await deliveryEvents(nats, infra.natsPrefix, delivery.id);
    await expect
      .poll(
        async () => (await deliveryEvents(nats, infra.natsPrefix, delivery.id)).at(-1)?.type,
        POLL,
      )
      .toBe('webhook.delivery.failed');
    expect(events.length).toBeLessThanOrEqual(5);
  });

  it('ends in fail when the partner never answers, each attempt timed out', async () => {
    const { scope, partner } = await merchant(() => 'hang');
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    const delivery = await finalDelivery(event.id, 'fail');
    expect(partner.calls).toHaveLength(4);
    const attempts = await attemptsOf(delivery.id);
    expect(attempts).toHaveLength(4);
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ status_code: null, error: 'timeout after 1000 ms' });
      expect(attempt.latency_ms).toBeGreaterThanOrEqual(1000);
    }
  });

  it('keeps a hung partner to its own slots: another merchant is delivered meanwhile', async () => {
    const hung = await merchant(() => 'hang');
    const fast = await merchant();
    const stuck = Array.from({ length: 12 }, () => paymentEvent(hung.scope, 'payment.succeeded'));
    for (const event of stuck) await send(event);
    // Four attempts (the default per-endpoint limit) hang; the other eight wait their turn.
    await expect.poll(() => hung.partner.calls.length, POLL).toBe(4);
    const event = paymentEvent(fast.scope, 'payment.succeeded');
    await send(event);
    await finalDelivery(event.id, 'success');
    // Delivered while the hung attempts still held their slots: none of them has ended
    // (timed out at 1 s and been recorded) yet.
    const [counted] = await db<{ ended: number }[]>`
      select count(*)::int as ended from delivery_attempts a join deliveries d on d.id = a.delivery_id
      where d.event_id in ${db(stuck.map((outcome) => outcome.id))}`;
    expect(counted!.ended).toBe(0);
    expect(hung.partner.calls).toHaveLength(4);
  });

  it('makes one delivery of a payment event handed over twice', async () => {
    const { scope, partner } = await merchant();
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    // As if the stream's deduplication window had passed.
    await send(event, randomUUID());
    await finalDelivery(event.id, 'success');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await deliveriesOf(event.id)).toHaveLength(1);
    expect(partner.calls).toHaveLength(1);
  });

  it('stops retrying on 410 Gone', async () => {
    const { scope, partner } = await merchant(() => ({ status: 410 }));
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    const delivery = await finalDelivery(event.id, 'fail');
    expect(delivery.attempts).toBe(1);
    expect(await attemptsOf(delivery.id)).toMatchObject([{ status_code: 410 }]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(partner.calls).toHaveLength(1);
  });

  it('waits as long as Retry-After asks when that is later than the schedule', async () => {
    const { scope, partner } = await merchant((call) =>
      call === 1 ? { status: 503, headers: { 'retry-after': '1' } } : 'sdk',
    );
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    await finalDelivery(event.id, 'success');
    const [first, second] = partner.calls;
    // The schedule alone would have retried after 200 ms ± 10 %.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('retries on schedule and records it when the merchant has no partner endpoint', async () => {
    const scope: MerchantScope = { merchantId: randomUUID(), mode: 'test' };
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    const delivery = await finalDelivery(event.id, 'fail');
    const attempts = await attemptsOf(delivery.id);
    expect(attempts.map((attempt) => attempt.error)).toEqual(Array(4).fill('no partner endpoint'));
  });
});

describe('restarting the dispatcher', () => {
  it('keeps a pending retry across a restart, and sends it when due', async () => {
    const { scope, partner } = await merchant((call) =>
      call === 1 ? { status: 503, headers: { 'retry-after': '2' } } : 'sdk',
    );
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    await expect.poll(async () => (await deliveriesOf(event.id))[0]?.attempts, POLL).toBe(1);

    await testbed.restart();

    const delivery = await finalDelivery(event.id, 'success');
    expect(delivery.attempts).toBe(2);
    expect(partner.received.map((received) => received.id)).toEqual([event.id]);
    expect(partner.calls[1]!.at - partner.calls[0]!.at).toBeGreaterThanOrEqual(1_900);
  });
});
