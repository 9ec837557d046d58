import { randomUUID } from 'node:crypto';
import { Rpc, type MerchantScope, type PaymentEvent } from '@dzpay/contracts';
import { AppError, requestRpc } from '@dzpay/platform';
import { paymentEvent, publishPaymentEvent } from '@dzpay/testkit/payment-events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  deliveryState,
  merchantWithPartner,
  POLL,
  startDispatcherTestbed,
  type Answer,
  type DispatcherTestbed,
} from './fixtures.ts';

type ListQuery = Omit<z.infer<typeof Rpc.webhookDeliveriesList.request>, keyof MerchantScope>;

let testbed: DispatcherTestbed;

const merchant = (answer?: (call: number) => Answer, mode?: MerchantScope['mode']) =>
  merchantWithPartner(testbed.nats, testbed.infra.natsPrefix, testbed.key, testbed.partners, {
    ...(answer ? { answer } : {}),
    ...(mode ? { mode } : {}),
  });
const send = (event: PaymentEvent) =>
  publishPaymentEvent(testbed.nats, testbed.infra.natsPrefix, event);
const list = (scope: MerchantScope, query: ListQuery = {}) =>
  requestRpc(testbed.nats, testbed.infra.natsPrefix, Rpc.webhookDeliveriesList, {
    ...scope,
    ...query,
  });
const attemptsOf = async (eventId: string) =>
  (
    await testbed.db<
      { attempts: number }[]
    >`select attempts from deliveries where event_id = ${eventId}`
  )[0]?.attempts ?? 0;
const stateOf = (eventId: string) => deliveryState(testbed.db, eventId);

/** Waits until `read` gives what `done` accepts (beforeAll has no expect.poll). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<void> {
  const deadline = Date.now() + POLL.timeout;
  while (!done(await read())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the dispatcher');
    await new Promise((resolve) => setTimeout(resolve, POLL.interval));
  }
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/** One merchant's deliveries: delivered, failing (retried) and given up, and whose. */
let scope: MerchantScope;
let delivered: { eventId: string; paymentId: string };
let failing: { eventId: string; paymentId: string };
let givenUp: { eventId: string };

beforeAll(async () => {
  // Two quick attempts, then the third waits ten minutes: a delivery still being retried.
  testbed = await startDispatcherTestbed('webhook-deliveries-list', {
    WEBHOOK_RETRY_SCHEDULE_MS: '0,50,600000',
  });

  // The partner acknowledges its first webhook, then answers 500 to everything.
  const made = await merchant((call) => (call === 1 ? 'sdk' : { status: 500, body: 'down' }));
  scope = made.scope;
  const first = paymentEvent(scope, 'payment.succeeded');
  await send(first);
  await until(
    () => stateOf(first.id),
    (state) => state === 'success',
  );
  delivered = { eventId: first.id, paymentId: first.data.paymentId };

  const second = paymentEvent(scope, 'payment.failed');
  await send(second);
  await until(
    () => attemptsOf(second.id),
    (attempts) => attempts === 2,
  );
  failing = { eventId: second.id, paymentId: second.data.paymentId };

  // A test event is tried once: unacknowledged, it is given up at once.
  const test = await requestRpc(testbed.nats, testbed.infra.natsPrefix, Rpc.webhookTestSend, scope);
  expect(test.ok).toBe(false);
  givenUp = { eventId: test.eventId };
});
afterAll(() => testbed?.close());

describe('every delivery of a merchant', () => {
  it('lists them newest first, each with all its attempts (status code, time, error)', async () => {
    const page = await list(scope);
    expect(page.nextCursor).toBeNull();
    expect(page.deliveries.map((d) => [d.eventId, d.eventType, d.state])).toEqual([
      [givenUp.eventId, 'webhook.test', 'fail'],
      [failing.eventId, 'payment.fail', 'pending'],
      [delivered.eventId, 'payment.success', 'success'],
    ]);
    const [test, retried, ok] = page.deliveries;
    // A test event has no payment.
    expect(test).toMatchObject({ paymentId: null, reference: null, nextAttemptAt: null });
    expect(test!.attempts).toMatchObject([{ number: 1, statusCode: 500, error: 'HTTP 500' }]);
    expect(retried).toMatchObject({ paymentId: failing.paymentId });
    expect(retried!.nextAttemptAt).not.toBeNull();
    expect(retried!.attempts.map((a) => [a.number, a.statusCode, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
    ]);
    expect(ok!.attempts.map((a) => [a.number, a.statusCode, a.error])).toEqual([[1, 200, null]]);
    for (const attempt of [...test!.attempts, ...retried!.attempts, ...ok!.attempts])
      expect(Number.isNaN(Date.parse(attempt.startedAt))).toBe(false);
  });

  it('filters by outcome, event type and payment', async () => {
    const ids = async (query: ListQuery) =>
      (await list(scope, query)).deliveries.map((d) => d.eventId);
    expect(await ids({ outcome: 'delivered' })).toEqual([delivered.eventId]);
    expect(await ids({ outcome: 'failing' })).toEqual([failing.eventId]);
    expect(await ids({ outcome: 'given_up' })).toEqual([givenUp.eventId]);
    expect(await ids({ type: 'payment.fail' })).toEqual([failing.eventId]);
    expect(await ids({ type: 'webhook.test' })).toEqual([givenUp.eventId]);
    expect(await ids({ type: 'payment.refunded' })).toEqual([]);
    expect(await ids({ paymentId: delivered.paymentId })).toEqual([delivered.eventId]);
    expect(await ids({ paymentId: delivered.paymentId, outcome: 'failing' })).toEqual([]);
    expect(await ids({ paymentId: randomUUID() })).toEqual([]);
  });

  it('pages with a cursor that new deliveries never shift', async () => {
    const first = await list(scope, { limit: 2 });
    expect(first.deliveries.map((d) => d.eventId)).toEqual([givenUp.eventId, failing.eventId]);
    expect(first.nextCursor).not.toBeNull();
    // A delivery made meanwhile goes on top, not into the next page.
    const newer = paymentEvent(scope, 'payment.succeeded');
    await send(newer);
    await expect.poll(() => attemptsOf(newer.id), POLL).toBeGreaterThan(0);
    const second = await list(scope, { limit: 2, cursor: first.nextCursor! });
    expect(second.deliveries.map((d) => d.eventId)).toEqual([delivered.eventId]);
    expect(second.nextCursor).toBeNull();
    expect((await list(scope, { limit: 1 })).deliveries[0]!.eventId).toBe(newer.id);
  });

  it('counts Algiers days, both included', async () => {
    const own = await merchant();
    const late = paymentEvent(own.scope, 'payment.succeeded');
    const early = paymentEvent(own.scope, 'payment.succeeded');
    for (const event of [late, early]) {
      await send(event);
      await expect.poll(() => stateOf(event.id), POLL).toBe('success');
    }
    // 23:30 UTC on 1 March is 00:30 on 2 March in Algiers; 22:59 UTC is still 1 March.
    await testbed.db`update deliveries set created_at = '2026-03-01T23:30:00Z' where event_id = ${late.id}`;
    await testbed.db`update deliveries set created_at = '2026-03-01T22:59:00Z' where event_id = ${early.id}`;
    const ids = async (query: ListQuery) =>
      (await list(own.scope, query)).deliveries.map((d) => d.eventId);
    expect(await ids({ from: '2026-03-02', to: '2026-03-02' })).toEqual([late.id]);
    expect(await ids({ from: '2026-03-01', to: '2026-03-01' })).toEqual([early.id]);
    expect(await ids({ from: '2026-03-01', to: '2026-03-02' })).toEqual([late.id, early.id]);
    expect(await ids({ from: '2026-03-03' })).toEqual([]);
    expect(await ids({ to: '2026-02-28' })).toEqual([]);
  });

  it('never shows another merchant’s deliveries, nor the other mode’s', async () => {
    const other = await merchant();
    const theirs = paymentEvent(other.scope, 'payment.succeeded');
    await send(theirs);
    await expect.poll(() => stateOf(theirs.id), POLL).toBe('success');

    const mine = (await list(scope, { limit: 100 })).deliveries.map((d) => d.eventId);
    expect(mine).not.toContain(theirs.id);
    // Not even when asked by its payment id.
    expect((await list(scope, { paymentId: theirs.data.paymentId })).deliveries).toEqual([]);
    expect((await list({ ...scope, mode: 'live' })).deliveries).toEqual([]);
    expect((await list(other.scope)).deliveries.map((d) => d.eventId)).toEqual([theirs.id]);
    // A cursor from one merchant's list pages nothing of another's.
    const page = await list(scope, { limit: 1 });
    const across = await list(other.scope, { cursor: page.nextCursor! });
    expect(across.deliveries.every((d) => d.eventId === theirs.id)).toBe(true);
  });

  it('refuses a cursor it never gave, a reversed day range and unknown fields', async () => {
    const bad = await refusal(list(scope, { cursor: 'bm90LWEtY3Vyc29y' }));
    expect(bad.code).toBe('VALIDATION400_BAD_REQUEST');
    expect(bad.details).toMatchObject({ failures: [{ field: 'cursor' }] });
    const reversed = await refusal(list(scope, { from: '2026-03-02', to: '2026-03-01' }));
    expect(reversed.code).toBe('VALIDATION400_BAD_REQUEST');
    expect(reversed.details).toMatchObject({ failures: [{ field: 'to' }] });
    const strict = Rpc.webhookDeliveriesList.request.safeParse({ ...scope, merchant: 'x' });
    expect(strict.success).toBe(false);
  });
});
