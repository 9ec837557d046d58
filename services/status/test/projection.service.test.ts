import { randomUUID } from 'node:crypto';
import {
  Rpc,
  statusRecordOf,
  type MerchantScope,
  type PaymentEvent,
  type StatusRecord,
  type WebhookDeliveryEvent,
} from '@dzpay/contracts';
import { connectNats, connectPostgres, requestRpc } from '@dzpay/platform';
import type { NatsConnection, Runtime } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusEnv } from '../src/config.ts';
import { startStatus } from '../src/service.ts';
import { attemptEvents, fromNow, publish, publishGarbage } from './payment-events.ts';
import { deliveryEvents, publishDelivery, publishDeliveryGarbage } from './webhook-events.ts';
import { servePaymentsRows } from './payments-stand-in.ts';

let infra: IsolatedInfra;
let nats: NatsConnection;
let service: Runtime<StatusEnv> | undefined;

const alice: MerchantScope = { merchantId: randomUUID(), mode: 'test' };
const bob: MerchantScope = { merchantId: randomUUID(), mode: 'test' };
const poll = { timeout: 10_000, interval: 50 };

const start = (env: Record<string, string> = {}) =>
  startStatus({ ...infra.env, ...env }, { handleSignals: false });
// The spec's record: the revisions beside it count writes, which a rebuild need not repeat.
const status = async (scope: MerchantScope, reference: string) =>
  statusRecordOf(
    await requestRpc(nats, infra.natsPrefix, Rpc.statusReferenceGet, { ...scope, reference }),
  );
const stageOf = async (scope: MerchantScope, reference: string) =>
  (await status(scope, reference)).stage;
async function send(...events: PaymentEvent[]): Promise<void> {
  for (const event of events) await publish(nats, infra.natsPrefix, event);
}

/**
 * Waits until everything published so far is projected: one consumer applies the
 * stream in order, so once a fresh marker attempt shows, every earlier event has too.
 */
async function projected(): Promise<void> {
  const reference = `MARK-${randomUUID()}`;
  await publish(nats, infra.natsPrefix, attemptEvents(alice, reference).created());
  await expect.poll(() => stageOf(alice, reference), poll).toBe('locked');
}

/** Waits until everything published on WEBHOOKS so far (and on PAYMENTS) is projected. */
async function deliveriesProjected(): Promise<void> {
  const reference = `MARK-${randomUUID()}`;
  const attempt = attemptEvents(alice, reference);
  await publish(nats, infra.natsPrefix, attempt.created());
  await publishDelivery(
    nats,
    infra.natsPrefix,
    deliveryEvents(alice, reference, attempt.paymentId)('pending'),
  );
  await expect
    .poll(async () => (await status(alice, reference)).payment?.webhookDelivery, poll)
    .toBe('pending');
}

beforeAll(async () => {
  infra = await isolatedInfra('status-projection');
  nats = await connectNats(infra.natsUrl, 'status-projection-test');
  // Payments' rows hold nothing: these attempts exist only as the events published here.
  await servePaymentsRows(nats, infra.natsPrefix);
  service = await start();
});
afterAll(async () => {
  await service?.stop();
  await nats?.close();
  await infra?.cleanup();
});

describe('the status of a product reference, projected from PAYMENTS', () => {
  it('is locked with its lockReleaseTime while processing, then paid', async () => {
    const attempt = attemptEvents(alice, 'REF-PAID');
    const processing = attempt.processing();
    await send(attempt.created(), processing);
    await expect
      .poll(() => status(alice, 'REF-PAID'), poll)
      .toMatchObject({
        stage: 'locked',
        locked: true,
        paid: false,
        lockReleaseTime: processing.data.lockExpiresAt,
        paymentId: attempt.paymentId,
        channel: 'AGENCY',
        amount: 1500.5,
        payment: { status: 'processing', amount: 1500.5, webhookDelivery: null },
      });

    const succeeded = attempt.succeeded();
    await send(succeeded);
    await expect
      .poll(() => status(alice, 'REF-PAID'), poll)
      .toMatchObject({
        stage: 'paid',
        locked: false,
        paid: true,
        lockReleaseTime: null,
        payment: {
          status: 'success',
          orderId: succeeded.data.orderId,
          paidAt: succeeded.data.paidAt,
        },
      });
  });

  it('is released after payment.failed', async () => {
    const attempt = attemptEvents(alice, 'REF-FAILED');
    await send(attempt.created(), attempt.processing(), attempt.failed());
    await expect
      .poll(() => status(alice, 'REF-FAILED'), poll)
      .toMatchObject({
        stage: 'released',
        locked: false,
        paymentId: attempt.paymentId,
        payment: { status: 'failed' },
      });
  });

  it('is refunded after payment.refunded', async () => {
    const attempt = attemptEvents(alice, 'REF-REFUNDED');
    await send(attempt.created(), attempt.processing(), attempt.succeeded(), attempt.refunded());
    await expect
      .poll(() => status(alice, 'REF-REFUNDED'), poll)
      .toMatchObject({
        stage: 'refunded',
        paid: false,
        payment: { status: 'refunded' },
      });
  });

  it('holds a lock without expiry, and an expired lock until its attempt is decided', async () => {
    const held = attemptEvents(alice, 'REF-HELD');
    await send(held.created(), held.processing(null));
    const expiring = attemptEvents(alice, 'REF-EXPIRING');
    const lockEnds = fromNow(1_500);
    await send(expiring.created(lockEnds));
    await expect
      .poll(() => status(alice, 'REF-HELD'), poll)
      .toMatchObject({ stage: 'locked', locked: true, lockReleaseTime: null });
    expect(await status(alice, 'REF-EXPIRING')).toMatchObject({
      stage: 'locked',
      lockReleaseTime: lockEnds,
    });
    // Past its lock time the attempt may still have been paid in time: still held.
    await expect
      .poll(() => status(alice, 'REF-EXPIRING'), poll)
      .toMatchObject({ stage: 'locked', locked: true, lockReleaseTime: null });
    await send(expiring.failed());
    await expect.poll(() => stageOf(alice, 'REF-EXPIRING'), poll).toBe('released');
  });

  it('never reports a QR code named like a product under the product reference', async () => {
    const qr = attemptEvents(alice, 'REF-SHARED', 'AGENCY', 'qr');
    await send(qr.created(), qr.processing(), qr.succeeded());
    await projected();
    expect(await stageOf(alice, 'REF-SHARED')).toBe('not_found');
    const product = attemptEvents(alice, 'REF-SHARED');
    await send(product.created());
    await expect.poll(() => stageOf(alice, 'REF-SHARED'), poll).toBe('locked');
    expect((await status(alice, 'REF-SHARED')).paymentId).toBe(product.paymentId);
  });

  it('reports paid even while a later attempt is processing', async () => {
    const first = attemptEvents(alice, 'REF-TWICE');
    const second = attemptEvents(alice, 'REF-TWICE');
    await send(first.created(), first.processing(), first.succeeded());
    await send(second.created(), second.processing());
    await projected();
    expect(await status(alice, 'REF-TWICE')).toMatchObject({
      stage: 'paid',
      paymentId: first.paymentId,
    });
  });

  it('changes nothing when the same event is delivered again', async () => {
    const attempt = attemptEvents(alice, 'REF-DUP');
    const processing = attempt.processing();
    await send(attempt.created(), processing, attempt.succeeded());
    // Once as the stream's deduplication drops it, once as if its window had passed.
    await publish(nats, infra.natsPrefix, processing);
    await publish(nats, infra.natsPrefix, processing, randomUUID());
    await projected();
    expect(await stageOf(alice, 'REF-DUP')).toBe('paid');
  });

  it('ignores hosted-checkout events and unreadable messages', async () => {
    const checkout = attemptEvents(alice, 'REF-CHECKOUT', 'CHECKOUT');
    await send(checkout.created(), checkout.processing(), checkout.succeeded());
    await publishGarbage(nats, infra.natsPrefix);
    await projected();
    expect(await status(alice, 'REF-CHECKOUT')).toEqual({
      reference: 'REF-CHECKOUT',
      stage: 'not_found',
      locked: false,
      paid: false,
      lockReleaseTime: null,
      paymentId: null,
      channel: 'AGENCY',
      currency: 'DZD',
      amount: null,
      payment: null,
    });
  });

  it("answers not_found for another merchant's or the other mode's reference", async () => {
    await projected();
    expect(await stageOf(alice, 'REF-PAID')).toBe('paid');
    expect(await stageOf(bob, 'REF-PAID')).toBe('not_found');
    expect(await stageOf({ ...alice, mode: 'live' }, 'REF-PAID')).toBe('not_found');
  });
});

describe('payment.webhookDelivery, projected from WEBHOOKS', () => {
  async function deliver(...events: WebhookDeliveryEvent[]): Promise<void> {
    for (const event of events) await publishDelivery(nats, infra.natsPrefix, event);
  }
  const deliveryOf = async (reference: string) =>
    (await status(alice, reference)).payment?.webhookDelivery;
  async function paid(reference: string) {
    const attempt = attemptEvents(alice, reference);
    await send(attempt.created(), attempt.processing(), attempt.succeeded());
    return { attempt, delivery: deliveryEvents(alice, reference, attempt.paymentId) };
  }

  it('is null while no delivery was due', async () => {
    await paid('REF-HOOK-NONE');
    await deliveriesProjected();
    expect(await status(alice, 'REF-HOOK-NONE')).toMatchObject({
      stage: 'paid',
      payment: { status: 'success', webhookDelivery: null },
    });
  });

  it('shows pending while retrying, then success', async () => {
    const { delivery } = await paid('REF-HOOK-OK');
    await deliver(delivery('pending'));
    await expect.poll(() => deliveryOf('REF-HOOK-OK'), poll).toBe('pending');
    await deliver(delivery('pending'), delivery('success'));
    await expect.poll(() => deliveryOf('REF-HOOK-OK'), poll).toBe('success');
  });

  it('shows fail while the stage stays paid', async () => {
    const { delivery } = await paid('REF-HOOK-FAIL');
    await deliver(delivery('pending'), delivery('fail'));
    await expect
      .poll(() => status(alice, 'REF-HOOK-FAIL'), poll)
      .toMatchObject({ stage: 'paid', paid: true, payment: { webhookDelivery: 'fail' } });
  });

  it('changes nothing when an older delivery event is delivered again', async () => {
    const { delivery } = await paid('REF-HOOK-DUP');
    const pending = delivery('pending');
    await deliver(pending, delivery('success'));
    // Once as the stream's deduplication drops it, once as if its window had passed
    // (a higher stream sequence, the same event id).
    await deliver(pending);
    await publishDelivery(nats, infra.natsPrefix, pending, randomUUID());
    await deliveriesProjected();
    expect(await deliveryOf('REF-HOOK-DUP')).toBe('success');
  });

  it('keeps a delivery that arrives before its attempt', async () => {
    const attempt = attemptEvents(alice, 'REF-HOOK-EARLY');
    const delivery = deliveryEvents(alice, 'REF-HOOK-EARLY', attempt.paymentId);
    await deliver(delivery('pending'), delivery('fail'));
    await deliveriesProjected();
    expect(await stageOf(alice, 'REF-HOOK-EARLY')).toBe('not_found');
    await send(attempt.created(), attempt.processing(), attempt.succeeded());
    await expect
      .poll(() => status(alice, 'REF-HOOK-EARLY'), poll)
      .toMatchObject({ stage: 'paid', payment: { webhookDelivery: 'fail' } });
  });

  it('ignores hosted-checkout deliveries and unreadable messages', async () => {
    const { attempt } = await paid('REF-HOOK-OTHER');
    await deliver(deliveryEvents(alice, 'REF-HOOK-OTHER', attempt.paymentId, 'CHECKOUT')('fail'));
    await publishDeliveryGarbage(nats, infra.natsPrefix);
    await deliveriesProjected();
    expect(await deliveryOf('REF-HOOK-OTHER')).toBeNull();
  });
});

describe('rebuilding the projection', () => {
  const references = [
    'REF-PAID',
    'REF-FAILED',
    'REF-REFUNDED',
    'REF-HELD',
    'REF-TWICE',
    'REF-DUP',
    'REF-HOOK-OK',
    'REF-HOOK-FAIL',
    'REF-HOOK-DUP',
    'REF-HOOK-EARLY',
  ];
  const answers = async (): Promise<StatusRecord[]> =>
    Promise.all(references.map((reference) => status(alice, reference)));
  // The answers before any rebuild, taken once inside the first test that needs them.
  let before: Promise<StatusRecord[]> | undefined;
  async function expected(): Promise<StatusRecord[]> {
    before ??= deliveriesProjected().then(answers);
    const records = await before;
    expect(records.map((record) => record.stage)).toEqual([
      'paid',
      'released',
      'refunded',
      'locked',
      'paid',
      'paid',
      'paid',
      'paid',
      'paid',
      'paid',
    ]);
    expect(records.slice(6).map((record) => record.payment?.webhookDelivery)).toEqual([
      'success',
      'fail',
      'success',
      'fail',
    ]);
    return records;
  }

  async function restart(env: Record<string, string> = {}): Promise<void> {
    await service?.stop();
    service = undefined;
    service = await start(env);
  }

  it('answers the same after a restart', async () => {
    const records = await expected();
    await restart();
    expect(await answers()).toEqual(records);
  });

  async function dropRows(): Promise<void> {
    await service?.stop();
    service = undefined;
    const sql = connectPostgres(infra.databaseUrl, 'status', 1);
    await sql`truncate attempts, pending_webhook_deliveries, processed_events, consumer_positions`;
    await sql.end();
  }

  it('replays the stream by itself when the projection lost its rows', async () => {
    const records = await expected();
    await dropRows();
    await restart();
    await expect.poll(answers, poll).toEqual(records);
  });

  it('replays the stream into a new durable consumer', async () => {
    const records = await expected();
    await dropRows();
    await restart({ STATUS_CONSUMER: 'status-rebuild' });
    await expect.poll(answers, poll).toEqual(records);
  });

  it('replays the stream into a fresh database', async () => {
    const records = await expected();
    const fresh = await isolatedInfra('status-fresh');
    try {
      await restart({ DATABASE_URL: fresh.databaseUrl });
      await expect.poll(answers, poll).toEqual(records);
    } finally {
      await service?.stop();
      service = undefined;
      await fresh.cleanup();
    }
  });
});
