import { randomUUID } from 'node:crypto';
import { connectPostgres, type Sql } from '@dzpay/platform';
import { migrateService } from '@dzpay/stack';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attemptOutcomes,
  type AttemptOutcomes,
} from '../src/adapters/deliveries/attempt-outcomes.ts';
import { deliveryClaims, type DeliveryClaims } from '../src/adapters/deliveries/claims.ts';
import { deliveryIntake, type DeliveryIntake } from '../src/adapters/deliveries/intake.ts';
import { pruneFinishedDeliveries } from '../src/adapters/deliveries/retention.ts';
import type { AttemptResult } from '../src/domain/attempt.ts';
import { webhookOf } from '../src/domain/webhook-body.ts';
import { paymentEvent } from '@dzpay/testkit/payment-events';

let infra: IsolatedInfra;
let sql: Sql;
let intake: DeliveryIntake;
let claims: DeliveryClaims;
let recorder: AttemptOutcomes;
const scope = { merchantId: randomUUID(), mode: 'test' as const };

beforeAll(async () => {
  infra = await isolatedInfra('webhook-deliveries');
  sql = connectPostgres(infra.databaseUrl, 'webhooks', 4);
  await migrateService(sql, 'webhook-dispatcher');
  intake = deliveryIntake(sql);
  claims = deliveryClaims(sql);
  recorder = attemptOutcomes(sql);
});
afterAll(async () => {
  await sql?.end();
  await infra?.cleanup();
});

const delivered = (): AttemptResult => ({
  startedAt: new Date(),
  latencyMs: 3,
  statusCode: 200,
  responseExcerpt: '{"success": true}',
  error: null,
  verdict: { kind: 'delivered' },
});

async function outboxStates(deliveryIds: string[]): Promise<Map<string, string[]>> {
  const rows = await sql<{ delivery_id: string; state: string }[]>`
    select payload->'data'->>'deliveryId' as delivery_id, payload->'data'->>'state' as state
    from outbox order by created_at, id`;
  const states = new Map<string, string[]>(deliveryIds.map((id) => [id, []]));
  for (const row of rows) states.get(row.delivery_id)?.push(row.state);
  return states;
}

describe('deliveries, written in batches', () => {
  it('enqueues a burst of outcomes, duplicates within the same batch included, once each', async () => {
    const outcomes = Array.from({ length: 150 }, () => paymentEvent(scope, 'payment.succeeded'));
    // Every outcome handed over twice at once, as a redelivery racing its first delivery.
    const answers = await Promise.all(
      [...outcomes, ...outcomes].map((event) => intake.enqueue(event, webhookOf(event)!)),
    );
    expect(answers.filter((answer) => answer === 'created')).toHaveLength(150);
    expect(answers.filter((answer) => answer === 'duplicate')).toHaveLength(150);

    const rows = await sql<{ id: string; event_id: string }[]>`
      select id, event_id from deliveries
      where event_id in ${sql(outcomes.map((event) => event.id))}`;
    expect(rows).toHaveLength(150);
    const states = await outboxStates(rows.map((row) => row.id));
    expect([...states.values()].every((list) => list.join() === 'pending')).toBe(true);
    // Batches really formed: far fewer transactions than calls.
    const [counted] = await sql<{ batches: number }[]>`
      select count(distinct created_at)::int as batches from outbox
      where payload->'data'->>'deliveryId' in ${sql(rows.map((row) => row.id))}`;
    expect(counted!.batches).toBeLessThan(150);
  });

  it('records a burst of attempts, each with its attempt row and event; a stale claim records nothing', async () => {
    const outcomes = Array.from({ length: 100 }, () => paymentEvent(scope, 'payment.failed'));
    await Promise.all(outcomes.map((event) => intake.enqueue(event, webhookOf(event)!)));
    const claimed = await claims.claimDue({
      limit: 1_000,
      perEndpoint: 1_000,
      busy: {},
      leaseMs: 60_000,
    });
    const ours = claimed.filter((delivery) =>
      outcomes.some((event) => event.id === delivery.eventId),
    );
    expect(ours).toHaveLength(100);
    const [stale, ...fresh] = ours;
    const recorded = await Promise.all([
      ...fresh.map((delivery) => recorder.record(delivery, delivered(), { state: 'success' })),
      // Another replica's view of the first one: it believes an attempt was already made.
      recorder.record({ ...stale!, attempts: 1 }, delivered(), { state: 'success' }),
    ]);
    expect(recorded.slice(0, 99).every(Boolean)).toBe(true);
    expect(recorded[99]).toBe(false);

    const rows = await sql<{ id: string; state: string; attempts: number; tries: number }[]>`
      select d.id, d.state, d.attempts, count(a.number)::int as tries
      from deliveries d left join delivery_attempts a on a.delivery_id = d.id
      where d.id in ${sql(ours.map((delivery) => delivery.id))}
      group by d.id`;
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(stale!.id)).toMatchObject({ state: 'pending', attempts: 0, tries: 0 });
    for (const delivery of fresh) {
      expect(byId.get(delivery.id)).toMatchObject({ state: 'success', attempts: 1, tries: 1 });
    }
    const states = await outboxStates(ours.map((delivery) => delivery.id));
    expect(states.get(stale!.id)).toEqual(['pending']);
    expect(fresh.every((delivery) => states.get(delivery.id)!.join() === 'pending,success')).toBe(
      true,
    );
  });

  it('fails only the outcome the database refuses, not the others enqueued with it', async () => {
    const good = paymentEvent(scope, 'payment.succeeded');
    const bad = paymentEvent(scope, 'payment.succeeded');
    const answers = await Promise.allSettled([
      intake.enqueue(good, webhookOf(good)!),
      intake.enqueue(good, webhookOf(good)!),
      // A body with a NUL character: Postgres text refuses it.
      intake.enqueue(bad, { type: 'payment.success', body: 'nul \u0000 here' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    const [row] = await sql`select 1 from deliveries where event_id = ${bad.id}`;
    expect(row).toBeUndefined();
  });
});

describe('deliveries, retention', () => {
  it('prunes finished deliveries with their attempts once aged out; pending and recent ones stay', async () => {
    const outcomes = Array.from({ length: 6 }, () => paymentEvent(scope, 'payment.succeeded'));
    await Promise.all(outcomes.map((event) => intake.enqueue(event, webhookOf(event)!)));
    const claimed = (
      await claims.claimDue({ limit: 1_000, perEndpoint: 1_000, busy: {}, leaseMs: 60_000 })
    ).filter((delivery) => outcomes.some((event) => event.id === delivery.eventId));
    // Four finished (two of them long ago), two still pending.
    const [oldA, oldB, recentA, recentB, pendingA, pendingB] = claimed;
    for (const delivery of [oldA, oldB, recentA, recentB])
      await recorder.record(delivery!, delivered(), { state: 'success' });
    await sql`update deliveries set updated_at = now() - interval '50 days'
      where id in ${sql([oldA!.id, oldB!.id, pendingA!.id])}`;

    const keepMs = 45 * 24 * 3600 * 1000;
    expect(await pruneFinishedDeliveries(sql, keepMs, 1)).toBe(1);
    expect(await pruneFinishedDeliveries(sql, keepMs, 10)).toBe(1);
    expect(await pruneFinishedDeliveries(sql, keepMs, 10)).toBe(0);

    const left = await sql<{ id: string }[]>`
      select id from deliveries where id in ${sql(claimed.map((delivery) => delivery.id))}`;
    expect(left.map((row) => row.id).sort()).toEqual(
      [recentA!.id, recentB!.id, pendingA!.id, pendingB!.id].sort(),
    );
    const attempts = await sql<{ n: number }[]>`
      select count(*)::int as n from delivery_attempts
      where delivery_id in ${sql([oldA!.id, oldB!.id])}`;
    expect(attempts[0]?.n).toBe(0);
  });
});
