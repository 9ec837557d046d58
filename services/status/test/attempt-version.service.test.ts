import { randomUUID } from 'node:crypto';
import {
  Rpc,
  STATUS_CHANGED_CHANNEL,
  statusChangeOf,
  type MerchantScope,
  type PaymentEvent,
  type StatusChange,
} from '@dzpay/contracts';
import {
  connectNats,
  connectPostgres,
  requestRpc,
  type NatsConnection,
  type Runtime,
  type Sql,
} from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusEnv } from '../src/config.ts';
import { statusRepository } from '../src/adapters/status-repository.ts';
import { attemptUpdateOf } from '../src/domain/attempt-event.ts';
import { startStatus } from '../src/service.ts';
import { attemptEvents, publish } from './payment-events.ts';
import { servePaymentsRows } from './payments-stand-in.ts';

// The PAYMENTS stream may hold a payment's events out of commit order: the relay
// publishes by transaction start (services/payments/test/payment-version.service.test.ts
// shows it). Status orders a payment's states by the version each event carries, and
// says which revision of each attempt an answer reflects, as its notifications do.

let infra: IsolatedInfra;
let nats: NatsConnection;
let sql: Sql;
let service: Runtime<StatusEnv> | undefined;

const scope: MerchantScope = { merchantId: randomUUID(), mode: 'test' };
const poll = { timeout: 10_000, interval: 50 };

const status = (reference: string) =>
  requestRpc(nats, infra.natsPrefix, Rpc.statusReferenceGet, { ...scope, reference });
const stageOf = async (reference: string) => (await status(reference)).stage;
const send = async (...events: PaymentEvent[]) => {
  for (const event of events) await publish(nats, infra.natsPrefix, event);
};
/** The event as payments writes it now: with the version its payment's row had. */
const at = (version: number, event: PaymentEvent): PaymentEvent => ({
  ...event,
  data: { ...event.data, version },
});

/** Waits until everything published so far is projected (one consumer, in order). */
async function projected(): Promise<void> {
  const reference = `MARK-${randomUUID()}`;
  await send(attemptEvents(scope, reference).created());
  await expect.poll(() => stageOf(reference), poll).toBe('locked');
}

beforeAll(async () => {
  infra = await isolatedInfra('status-version');
  nats = await connectNats(infra.natsUrl, 'status-version-test');
  // Payments' rows hold nothing: these attempts exist only as the events published here.
  await servePaymentsRows(nats, infra.natsPrefix);
  service = await startStatus(infra.env, { handleSignals: false });
  sql = connectPostgres(infra.databaseUrl, 'status', 1);
});
afterAll(async () => {
  await service?.stop();
  await sql?.end();
  await nats?.close();
  await infra?.cleanup();
});

describe("the order of an attempt's states", () => {
  it('keeps the newer state when an older version comes later in the stream', async () => {
    // The order the relay published test 1's payment in: created, then the expiry that
    // committed last, then the payer's press on pay that committed before it.
    const attempt = attemptEvents(scope, 'VERSION-APART');
    await send(at(1, attempt.created()));
    await expect.poll(() => stageOf('VERSION-APART'), poll).toBe('locked');
    await send(at(3, attempt.failed()));
    await expect.poll(() => stageOf('VERSION-APART'), poll).toBe('released');
    await send(at(2, attempt.processing()));
    await projected();
    expect(await status('VERSION-APART')).toMatchObject({
      stage: 'released',
      payment: { status: 'failed' },
    });
  });

  it('keeps the newer state when both arrive together, and a repeat of the same version changes nothing', async () => {
    const attempt = attemptEvents(scope, 'VERSION-TOGETHER');
    await send(at(1, attempt.created()), at(4, attempt.succeeded()), at(2, attempt.processing()));
    await projected();
    expect(await stageOf('VERSION-TOGETHER')).toBe('paid');
    // Another event of the same state (same version): not a newer state.
    await send(at(4, attempt.failed()));
    await projected();
    expect(await stageOf('VERSION-TOGETHER')).toBe('paid');
  });

  it('keeps the newer state of a payment written in one batch', async () => {
    // The batch the projection writes when the three arrive together (PROJECTION_BATCH).
    const attempt = attemptEvents(scope, 'VERSION-BATCH');
    const events = [
      at(1, attempt.created()),
      at(4, attempt.succeeded()),
      at(2, attempt.processing()),
    ];
    const outcomes = await statusRepository(sql).applyAll(
      'version-batch',
      events.map((event, n) => ({
        streamSeq: n + 1,
        change: { eventId: event.id, update: attemptUpdateOf(event)! },
      })),
    );
    expect(outcomes).toEqual(['applied', 'applied', 'applied']);
    expect(await stageOf('VERSION-BATCH')).toBe('paid');
  });

  it('orders events without a version by the stream, as before', async () => {
    const attempt = attemptEvents(scope, 'VERSION-NONE');
    await send(at(1, attempt.created()), attempt.failed());
    await projected();
    expect(await stageOf('VERSION-NONE')).toBe('released');
  });
});

describe('the revisions of an answer', () => {
  it('match the revision each change notification names', async () => {
    const heard: StatusChange[] = [];
    const listening = await sql.listen(STATUS_CHANGED_CHANNEL, (payload) => {
      const change = statusChangeOf(payload);
      if (change?.reference === 'REVISIONS') heard.push(change);
    });
    try {
      const attempt = attemptEvents(scope, 'REVISIONS');
      await send(at(1, attempt.created()));
      await expect.poll(() => heard.length, poll).toBe(1);
      await send(at(2, attempt.processing()));
      await expect.poll(() => heard.length, poll).toBe(2);
      expect(heard.map((change) => change.attempt)).toEqual([
        { paymentId: attempt.paymentId, revision: 1 },
        { paymentId: attempt.paymentId, revision: 2 },
      ]);
      expect((await status('REVISIONS')).revisions).toEqual({ [attempt.paymentId]: 2 });
      // An older event writes nothing: no new revision, no notification.
      await send(at(1, attempt.created()));
      await projected();
      expect((await status('REVISIONS')).revisions).toEqual({ [attempt.paymentId]: 2 });
      expect(heard).toHaveLength(2);
    } finally {
      await listening.unlisten();
    }
  });
});
