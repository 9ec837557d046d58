import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Sql } from '../src/db.ts';
import { createLogger } from '../src/logger.ts';
import { connectNats, type NatsConnection } from '../src/nats.ts';
import { startOutboxRelay, type OutboxRelay } from '../src/outbox-relay.ts';
import { createOutboxSchema } from './outbox-schema.ts';

// The relay is woken by the commit's notification only (its poll is an hour away here):
// a commit of more events than one relay transaction takes must still go out whole, in
// commit order, and so must commits that land while a drain is running.

let infra: IsolatedInfra;
let sql: Sql;
let nc: NatsConnection;
let relay: OutboxRelay;
const stream = () => `${infra.natsPrefix}_RELAY_TEST`;

beforeAll(async () => {
  infra = await isolatedInfra('outbox-relay');
  await createOutboxSchema(infra.databaseUrl, 'relay_test', 'clock_timestamp()');
  sql = connectPostgres(infra.databaseUrl, 'relay_test', 4);
  nc = await connectNats(infra.natsUrl, 'relay-test');
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream(), subjects: [`${infra.natsPrefix}.relay.>`] });
  relay = await startOutboxRelay({
    sql,
    nats: nc,
    prefix: infra.natsPrefix,
    logger: createLogger('relay-test', 'silent'),
    intervalMs: 3_600_000,
  });
});
afterAll(async () => {
  await relay?.stop();
  await (await jetstreamManager(nc)).streams.delete(stream()).catch(() => undefined);
  await nc?.close();
  await sql?.end();
  await infra?.cleanup();
});

/** Inserts events numbered from `from`, `count` of them, in one transaction. */
async function commit(from: number, count: number): Promise<void> {
  await sql`
    insert into outbox (id, subject, payload)
    select gen_random_uuid(), 'relay.event', jsonb_build_object('n', n)
    from generate_series(${from}::int, ${from + count - 1}::int) n order by n`;
}

async function published(expected: number): Promise<number[]> {
  const jsm = await jetstreamManager(nc);
  const deadline = Date.now() + 10_000;
  while ((await jsm.streams.info(stream())).state.messages < expected) {
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const consumer = await jetstream(nc).consumers.get(stream());
  const numbers: number[] = [];
  const messages = await consumer.fetch({ max_messages: expected + 10, expires: 1_000 });
  for await (const msg of messages) numbers.push(msg.json<{ n: number }>().n);
  return numbers;
}

describe('outbox relay', () => {
  it('publishes a commit larger than one batch, and the commits made while it runs, in order', async () => {
    await commit(1, 450);
    // While the first drain is under way: four more commits, each its own notification.
    for (let i = 0; i < 4; i++) await commit(451 + i * 10, 10);
    const numbers = await published(490);
    expect(numbers).toEqual(Array.from({ length: 490 }, (_, i) => i + 1));
    const [left] = await sql<{ n: number }[]>`
      select count(*)::int as n from outbox where published_at is null`;
    expect(left?.n).toBe(0);
  });
});
