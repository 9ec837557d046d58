import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { paymentEvent } from '@dzpay/testkit/payment-events';
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
const payments = () => `${infra.natsPrefix}_RELAY_PAYMENTS`;

beforeAll(async () => {
  infra = await isolatedInfra('outbox-relay');
  await createOutboxSchema(infra.databaseUrl, 'relay_test', 'clock_timestamp()');
  sql = connectPostgres(infra.databaseUrl, 'relay_test', 4);
  nc = await connectNats(infra.natsUrl, 'relay-test');
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream(), subjects: [`${infra.natsPrefix}.relay.>`] });
  await jsm.streams.add({ name: payments(), subjects: [`${infra.natsPrefix}.payments.events.>`] });
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
  for (const name of [stream(), payments()])
    await (await jetstreamManager(nc)).streams.delete(name).catch(() => undefined);
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

  it('publishes an event on its own subject, not on the one its row was written with', async () => {
    const event = paymentEvent({ merchantId: randomUUID(), mode: 'test' }, 'payment.succeeded', {
      channel: 'CHECKOUT',
      referenceKind: 'order',
    });
    // As a writer of the layout before events named whom they concern wrote it.
    await sql`
      insert into outbox (id, subject, payload)
      values (${event.id}, 'payments.events.payment.succeeded', ${sql.json(event)})`;
    await relay.flush();
    const message = await (
      await jetstreamManager(nc)
    ).streams.getMessage(payments(), {
      last_by_subj: `${infra.natsPrefix}.payments.events.>`,
    });
    expect(message?.subject).toBe(
      `${infra.natsPrefix}.payments.events.checkout.order.decided.payment.succeeded`,
    );
    expect(message?.json<{ id: string }>().id).toBe(event.id);
  });
});
