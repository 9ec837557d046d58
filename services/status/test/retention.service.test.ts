import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { DurableConsumers, Rpc, Streams, type MerchantScope } from '@dzpay/contracts';
import {
  connectNats,
  connectPostgres,
  deployedStream,
  requestRpc,
  streamName,
  type Logger,
  type NatsConnection,
  type Runtime,
  type Sql,
} from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayWhenBehind } from '../src/adapters/replay-check.ts';
import type { StatusEnv } from '../src/config.ts';
import { startStatus } from '../src/service.ts';
import { attemptEvents, publish } from './payment-events.ts';
import { servePaymentsRows } from './payments-stand-in.ts';

let infra: IsolatedInfra;
let nats: NatsConnection;
let db: Sql;
let service: Runtime<StatusEnv> | undefined;
const alice: MerchantScope = { merchantId: randomUUID(), mode: 'test' };
const poll = { timeout: 15_000, interval: 100 };
// Compressed: the stream keeps 3 s of events, processed ids are kept 5 s.
const retention = {
  STREAM_MAX_AGE_MS: '3000',
  DEDUP_RETENTION_MS: '5000',
  PRUNE_INTERVAL_MS: '1000',
};

beforeAll(async () => {
  infra = await isolatedInfra('status-retention');
  nats = await connectNats(infra.natsUrl, 'status-retention-test');
  db = connectPostgres(infra.databaseUrl, 'status', 1);
  // Payments' rows hold nothing: these attempts exist only as the events published here.
  await servePaymentsRows(nats, infra.natsPrefix);
  service = await startStatus({ ...infra.env, ...retention }, { handleSignals: false });
});
afterAll(async () => {
  await service?.stop();
  await db?.end();
  await nats?.close();
  await infra?.cleanup();
});

const stageOf = async (reference: string) =>
  (await requestRpc(nats, infra.natsPrefix, Rpc.statusReferenceGet, { ...alice, reference })).stage;
const processedIds = async () =>
  (await db<{ event_id: string }[]>`select event_id from processed_events`).map((r) => r.event_id);

async function paid(reference: string): Promise<string[]> {
  const attempt = attemptEvents(alice, reference);
  const events = [attempt.created(), attempt.succeeded()];
  for (const event of events) await publish(nats, infra.natsPrefix, event);
  await expect.poll(() => stageOf(reference), poll).toBe('paid');
  return events.map((event) => event.id);
}

describe('retention of the status projection', () => {
  it('drops old events from the stream and old processed ids, keeps recent ones, and a rebuild says from where it must start', async () => {
    const old = await paid('REF-OLD');
    const jsm = await jetstreamManager(nats);
    const stream = streamName(infra.natsPrefix, Streams.payments.name);
    const info = await jsm.streams.info(stream);
    expect(info.config.max_age).toBe(3000 * 1_000_000);

    // Past both ages: the stream dropped the old events, the pruner their ids.
    await expect.poll(async () => (await jsm.streams.info(stream)).state.messages, poll).toBe(0);
    await expect
      .poll(async () => (await processedIds()).filter((id) => old.includes(id)), poll)
      .toEqual([]);
    const recent = await paid('REF-RECENT');
    expect(await processedIds()).toEqual(expect.arrayContaining(recent));
    // The record itself is the truth the projection keeps: pruning ids never touches it.
    expect(await stageOf('REF-OLD')).toBe('paid');

    // A rebuild (the database lost its rows) can replay only what the stream still has:
    // it says so, and from where a backup must take over.
    await service?.stop();
    service = undefined;
    const errors: Record<string, unknown>[] = [];
    const logger = {
      warn: () => {},
      error: (fields: Record<string, unknown>) => errors.push(fields),
    } as unknown as Logger;
    const replay = replayWhenBehind({
      nats,
      prefix: infra.natsPrefix,
      stream: deployedStream(Streams.payments, { STREAM_REPLICAS: 1, STREAM_MAX_AGE_MS: 3000 }),
      durable: DurableConsumers.statusPayments.durable,
      appliedUpTo: () => Promise.resolve(0),
      logger,
    });
    const consumer = await jsm.consumers.info(stream, DurableConsumers.statusPayments.durable);
    expect(await replay(consumer)).toBe(true);
    expect(errors).toEqual([
      expect.objectContaining({ applied: 0, firstKeptSeq: expect.any(Number) as number }),
    ]);
    expect(errors[0]!.firstKeptSeq).toBeGreaterThan(2);
  }, 60_000);
});
