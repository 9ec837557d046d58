import { randomUUID } from 'node:crypto';
import {
  Rpc,
  statusKey,
  type MerchantScope,
  type PaymentEvent,
  type StatusSubject,
} from '@dzpay/contracts';
import { AppError, connectNats, requestRpc, type NatsConnection } from '@dzpay/platform';
import type { Runtime } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusEnv } from '../src/config.ts';
import { startStatus } from '../src/service.ts';
import { attemptEvents, publish } from './payment-events.ts';
import { servePaymentsRows } from './payments-stand-in.ts';

// Status calls a reference free (not_found, released, refunded) only once payments' own
// rows agree: the stream may lag them by seconds (docs/status.md, "Free only when
// payments agrees"). Here the test plays payments twice over: its events on the stream,
// and what its rows hold (`rows`), which may be ahead of the stream, as in a failover.

let infra: IsolatedInfra;
let nats: NatsConnection;
let service: Runtime<StatusEnv> | undefined;
let payments: Awaited<ReturnType<typeof servePaymentsRows>>;
const rows = new Map<string, PaymentEvent[]>();

const alice: MerchantScope = { merchantId: randomUUID(), mode: 'test' };
const poll = { timeout: 10_000, interval: 50 };

const ask = (reference: string) =>
  requestRpc(nats, infra.natsPrefix, Rpc.statusReferenceGet, { ...alice, reference });
const holding = (reference: string, ...events: PaymentEvent[]) =>
  rows.set(statusKey({ ...alice, reference }), events);
const versioned = (event: PaymentEvent, version: number): PaymentEvent => ({
  ...event,
  data: { ...event.data, version },
});

beforeAll(async () => {
  infra = await isolatedInfra('status-held');
  nats = await connectNats(infra.natsUrl, 'status-held-test');
  payments = await servePaymentsRows(
    nats,
    infra.natsPrefix,
    (subject: StatusSubject) => rows.get(statusKey(subject)) ?? [],
  );
  service = await startStatus(infra.env, { handleSignals: false });
});
afterAll(async () => {
  await service?.stop();
  await nats?.close();
  await infra?.cleanup();
});

describe('a reference is called free only when payments agrees', () => {
  it('reads locked, not not_found, for an attempt the stream has not carried yet', async () => {
    const reference = `NEW-${randomUUID()}`;
    const attempt = attemptEvents(alice, reference);
    holding(reference, attempt.created());

    const answer = await ask(reference);

    expect(answer.stage).toBe('locked');
    expect(answer.paymentId).toBe(attempt.paymentId);
    expect(answer.lockReleaseTime).not.toBeNull();
    // Payments' state reflects no row of the projection: no revision for the gateway.
    expect(answer.revisions).toEqual({});
  });

  it('reads locked, not released, when a new payer opened after a decline', async () => {
    const reference = `AGAIN-${randomUUID()}`;
    const declined = attemptEvents(alice, reference);
    await publish(nats, infra.natsPrefix, declined.created());
    await publish(nats, infra.natsPrefix, declined.failed());
    await expect.poll(async () => (await ask(reference)).stage, poll).toBe('released');

    const next = attemptEvents(alice, reference);
    holding(reference, next.processing(null));
    const answer = await ask(reference);

    expect(answer.stage).toBe('locked');
    expect(answer.paymentId).toBe(next.paymentId);
    expect(answer.lockReleaseTime).toBeNull();
    // The projection's attempt is still part of the answer, at its revision.
    expect(Object.keys(answer.revisions ?? {})).toEqual([declined.paymentId]);
  });

  it('reads paid, not released, for a success the stream has not carried yet', async () => {
    const reference = `PAID-${randomUUID()}`;
    const attempt = attemptEvents(alice, reference);
    await publish(nats, infra.natsPrefix, attempt.created());
    await publish(nats, infra.natsPrefix, attempt.failed());
    await expect.poll(async () => (await ask(reference)).stage, poll).toBe('released');

    const winner = attemptEvents(alice, reference);
    holding(reference, winner.succeeded());

    expect(await ask(reference)).toMatchObject({ stage: 'paid', paymentId: winner.paymentId });
  });

  it('keeps a newer state of the projection over an older row read before it', async () => {
    const reference = `RACE-${randomUUID()}`;
    const attempt = attemptEvents(alice, reference);
    await publish(nats, infra.natsPrefix, versioned(attempt.succeeded(), 3));
    await publish(nats, infra.natsPrefix, versioned(attempt.refunded(), 4));
    await expect.poll(async () => (await ask(reference)).stage, poll).toBe('refunded');

    // The row was read as paid, and refunded right after: version 3 is the older state.
    holding(reference, versioned(attempt.succeeded(), 3));

    expect((await ask(reference)).stage).toBe('refunded');
  });

  it('does not ask payments when the projection already says locked or paid', async () => {
    const reference = `HELD-${randomUUID()}`;
    const attempt = attemptEvents(alice, reference);
    await publish(nats, infra.natsPrefix, attempt.created());
    await expect.poll(async () => (await ask(reference)).stage, poll).toBe('locked');
    const before = payments.asked();

    await ask(reference);
    await publish(nats, infra.natsPrefix, attempt.succeeded());
    await expect.poll(async () => (await ask(reference)).stage, poll).toBe('paid');

    expect(payments.asked()).toBe(before);
  });

  it('answers 503, never a free stage, when payments cannot be asked', async () => {
    const reference = `DARK-${randomUUID()}`;
    holding(reference, attemptEvents(alice, reference).created());
    await payments.stop();
    try {
      const failure = await ask(reference).then(
        (answer) => answer,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(AppError);
      expect((failure as AppError).code).toBe('SERVICE503_UNAVAILABLE');
    } finally {
      payments = await servePaymentsRows(
        nats,
        infra.natsPrefix,
        (subject: StatusSubject) => rows.get(statusKey(subject)) ?? [],
      );
    }
    expect((await ask(reference)).stage).toBe('locked');
  });
});
