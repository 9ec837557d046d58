import { randomUUID } from 'node:crypto';
import { Rpc, type MerchantScope, type PaymentEvent } from '@dzpay/contracts';
import { AppError, requestRpc, type NatsConnection, type Sql } from '@dzpay/platform';
import { freePort, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentEvent, publishPaymentEvent } from '@dzpay/testkit/payment-events';
import {
  deliveryEvents,
  deliveryState,
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

const stateOf = (eventId: string) => deliveryState(db, eventId);

/** A merchant of its own whose partner endpoint is `url`. */
const merchantAt = (url: string) => registerMerchant(nats, infra.natsPrefix, key, url);

/** A merchant with a partner server answering as told. */
const merchant = (answer?: (call: number) => Answer) =>
  merchantWithPartner(nats, infra.natsPrefix, key, partners, answer ? { answer } : {});

const send = (event: PaymentEvent) => publishPaymentEvent(nats, infra.natsPrefix, event);
const list = (scope: MerchantScope, paymentId: string) =>
  requestRpc(nats, infra.natsPrefix, Rpc.deliveriesOfPayment, { ...scope, paymentId });
const replay = (scope: MerchantScope, deliveryId: string) =>
  requestRpc(nats, infra.natsPrefix, Rpc.deliveryReplay, { ...scope, deliveryId });

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(AppError);
  return (error as AppError).code;
}

beforeAll(async () => {
  testbed = await startDispatcherTestbed('webhook-deliveries-api', {
    WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100',
  });
  ({ infra, nats, db, key, partners } = testbed);
});
afterAll(() => testbed?.close());

describe('listing a payment’s deliveries', () => {
  it('shows the delivery and every attempt, with status code and latency', async () => {
    const { scope } = await merchant((call) =>
      call === 1 ? { status: 500, body: 'boom' } : 'sdk',
    );
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    await expect.poll(() => stateOf(event.id), POLL).toBe('success');

    const { deliveries } = await list(scope, event.data.paymentId);
    expect(deliveries).toHaveLength(1);
    const [delivery] = deliveries;
    expect(delivery).toMatchObject({
      eventId: event.id,
      eventType: 'payment.success',
      paymentId: event.data.paymentId,
      reference: event.data.reference,
      state: 'success',
      nextAttemptAt: null,
    });
    expect(delivery!.attempts.map((attempt) => [attempt.number, attempt.statusCode])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(delivery!.attempts[0]).toMatchObject({ error: 'HTTP 500', responseExcerpt: 'boom' });
    expect(delivery!.attempts[1]).toMatchObject({ error: null });
    expect(delivery!.attempts[1]!.responseExcerpt).toContain('"success":true');
    for (const attempt of delivery!.attempts) {
      expect(attempt.latencyMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(attempt.startedAt)).toBeGreaterThanOrEqual(Date.parse(delivery!.createdAt));
    }
  });

  it('is empty for a payment without deliveries, another merchant’s, another mode’s, or a paymentId that is no UUID', async () => {
    const { scope } = await merchant();
    const event = paymentEvent(scope, 'payment.failed');
    await send(event);
    await expect.poll(() => stateOf(event.id), POLL).toBe('success');
    expect((await list(scope, event.data.paymentId)).deliveries).toHaveLength(1);

    const other: MerchantScope = { merchantId: randomUUID(), mode: 'test' };
    expect(await list(other, event.data.paymentId)).toEqual({ deliveries: [] });
    expect(await list({ ...scope, mode: 'live' }, event.data.paymentId)).toEqual({
      deliveries: [],
    });
    expect(await list(scope, randomUUID())).toEqual({ deliveries: [] });
    expect(await list(scope, "not-a-uuid'; drop table deliveries; --")).toEqual({
      deliveries: [],
    });
  });
});

describe('replaying a delivery', () => {
  it('delivers to a partner down for the whole run once it is up, same event id, numbering on', async () => {
    const port = await freePort();
    const { scope, signingSecret } = await merchantAt(`http://127.0.0.1:${port}`);
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    await expect.poll(() => stateOf(event.id), POLL).toBe('fail');

    const [failed] = (await list(scope, event.data.paymentId)).deliveries;
    expect(failed).toMatchObject({ state: 'fail', nextAttemptAt: null });
    expect(failed!.attempts).toHaveLength(3);
    for (const attempt of failed!.attempts) {
      expect(attempt.statusCode).toBeNull();
      expect(attempt.error).toContain('ECONNREFUSED');
    }

    // The partner comes up where it was down.
    const partner = await startPartner(signingSecret, () => 'sdk', port);
    partners.push(partner);
    const replayed = await replay(scope, failed!.id);
    expect(replayed).toMatchObject({ id: failed!.id, eventId: event.id, state: 'pending' });
    expect(replayed.attempts).toHaveLength(3);
    expect(replayed.nextAttemptAt).not.toBeNull();

    await expect.poll(() => stateOf(event.id), POLL).toBe('success');
    expect(partner.received.map((received) => received.id)).toEqual([event.id]);
    expect(partner.calls[0]!.headers['x-event-id']).toBe(event.id);
    const [delivered] = (await list(scope, event.data.paymentId)).deliveries;
    expect(delivered!.attempts.map((attempt) => [attempt.number, attempt.statusCode])).toEqual([
      [1, null],
      [2, null],
      [3, null],
      [4, 200],
    ]);
    await expect
      .poll(
        async () =>
          (await deliveryEvents(nats, infra.natsPrefix, failed!.id)).map((e) => [
            e.type,
            e.data.attempts,
          ]),
        POLL,
      )
      .toEqual([
        ['webhook.delivery.pending', 0],
        ['webhook.delivery.pending', 1],
        ['webhook.delivery.pending', 2],
        ['webhook.delivery.failed', 3],
        ['webhook.delivery.pending', 3],
        ['webhook.delivery.succeeded', 4],
      ]);
  });

  it('gives a replay the whole retry schedule again', async () => {
    // 500 for the three attempts of the schedule and the replay's first, then up.
    const { scope, partner } = await merchant((call) => (call <= 4 ? { status: 500 } : 'sdk'));
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    await expect.poll(() => stateOf(event.id), POLL).toBe('fail');
    const [failed] = (await list(scope, event.data.paymentId)).deliveries;

    // Without a fresh schedule, attempt 4 would be past its end and the replay `fail`.
    await replay(scope, failed!.id);
    await expect.poll(() => stateOf(event.id), POLL).toBe('success');
    expect(partner.calls).toHaveLength(5);
    expect(partner.received.map((received) => received.id)).toEqual([event.id]);
  });

  it('sends a delivered webhook again, with the same event id and body', async () => {
    const { scope, partner } = await merchant();
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    await expect.poll(() => stateOf(event.id), POLL).toBe('success');
    const [delivery] = (await list(scope, event.data.paymentId)).deliveries;

    await replay(scope, delivery!.id);
    await expect.poll(() => partner.received.length, POLL).toBe(2);
    await expect.poll(() => stateOf(event.id), POLL).toBe('success');
    expect(partner.received[1]).toEqual(partner.received[0]);
    expect(partner.calls.map((call) => call.headers['x-event-id'])).toEqual([event.id, event.id]);
    const [again] = (await list(scope, event.data.paymentId)).deliveries;
    expect(again!.attempts.map((attempt) => attempt.number)).toEqual([1, 2]);
  });

  it('answers WEBHOOK404_DELIVERY_NOT_FOUND for another merchant’s or an unknown delivery', async () => {
    const { scope, partner } = await merchant();
    const event = paymentEvent(scope, 'payment.succeeded');
    await send(event);
    await expect.poll(() => stateOf(event.id), POLL).toBe('success');
    const [delivery] = (await list(scope, event.data.paymentId)).deliveries;

    const other: MerchantScope = { merchantId: randomUUID(), mode: 'test' };
    expect(await codeOf(replay(other, delivery!.id))).toBe('WEBHOOK404_DELIVERY_NOT_FOUND');
    expect(await codeOf(replay({ ...scope, mode: 'live' }, delivery!.id))).toBe(
      'WEBHOOK404_DELIVERY_NOT_FOUND',
    );
    expect(await codeOf(replay(scope, randomUUID()))).toBe('WEBHOOK404_DELIVERY_NOT_FOUND');
    expect(await codeOf(replay(scope, 'nope'))).toBe('WEBHOOK404_DELIVERY_NOT_FOUND');
    // Nothing was scheduled again.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(partner.calls).toHaveLength(1);
    expect(await stateOf(event.id)).toBe('success');
  });
});
