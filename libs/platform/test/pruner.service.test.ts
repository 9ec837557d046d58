import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Sql } from '../src/db.ts';
import { createLogger } from '../src/logger.ts';
import { outboxPruneTask, processedEventsPruneTask, startPruner } from '../src/pruner.ts';

let infra: IsolatedInfra;
let sql: Sql;
const DAY = 24 * 3600 * 1000;

beforeAll(async () => {
  infra = await isolatedInfra('platform-pruner');
  sql = connectPostgres(infra.databaseUrl, 'pruning', 2);
  await sql`create schema if not exists pruning`;
  // The shapes every service's outbox and processed_events share.
  await sql`create table outbox (id uuid primary key default gen_random_uuid(),
    subject text not null default 's', payload jsonb not null default '{}',
    created_at timestamptz not null default now(), published_at timestamptz)`;
  await sql`create table processed_events (event_id uuid primary key default gen_random_uuid(),
    processed_at timestamptz not null default now())`;
});
afterAll(async () => {
  await sql?.end();
  await infra?.cleanup();
});

const ago = (days: number) => new Date(Date.now() - days * DAY);

describe('the pruner', () => {
  it('deletes in batches what aged out, and keeps recent and unpublished rows', async () => {
    // 23 published 10 days ago, 4 published an hour ago, 3 never published (10 days old).
    for (let i = 0; i < 23; i++)
      await sql`insert into outbox (created_at, published_at) values (${ago(10)}, ${ago(10)})`;
    for (let i = 0; i < 4; i++)
      await sql`insert into outbox (published_at) values (${ago(1 / 24)})`;
    for (let i = 0; i < 3; i++) await sql`insert into outbox (created_at) values (${ago(10)})`;
    for (let i = 0; i < 9; i++)
      await sql`insert into processed_events (processed_at) values (${ago(50)})`;
    for (let i = 0; i < 2; i++) await sql`insert into processed_events default values`;

    const batches: number[] = [];
    const outbox = outboxPruneTask(sql, 7 * DAY);
    const pruner = startPruner({
      tasks: [
        {
          name: outbox.name,
          prune: async (limit) => {
            const n = await outbox.prune(limit);
            batches.push(n);
            return n;
          },
        },
        processedEventsPruneTask(sql, 45 * DAY),
      ],
      logger: createLogger('pruner-test', 'silent'),
      intervalMs: 3_600_000,
      batchSize: 5,
      pauseMs: 1,
    });
    expect(await pruner.runOnce()).toEqual({ outbox: 23, 'processed events': 9 });
    // Never more than a batch in one statement; it stops at the first short batch.
    expect(batches).toEqual([5, 5, 5, 5, 3]);
    const [left] = await sql<{ published: number; unpublished: number }[]>`
      select count(*) filter (where published_at is not null)::int as published,
             count(*) filter (where published_at is null)::int as unpublished from outbox`;
    expect(left).toEqual({ published: 4, unpublished: 3 });
    const [ids] = await sql<{ n: number }[]>`select count(*)::int as n from processed_events`;
    expect(ids?.n).toBe(2);
    expect(await pruner.runOnce()).toEqual({ outbox: 0, 'processed events': 0 });
    await pruner.stop();
  });

  it('stops a task after its cap of batches in one round; the next round goes on', async () => {
    for (let i = 0; i < 12; i++)
      await sql`insert into processed_events (processed_at) values (${ago(50)})`;
    const pruner = startPruner({
      tasks: [processedEventsPruneTask(sql, 45 * DAY)],
      logger: createLogger('pruner-test', 'silent'),
      intervalMs: 3_600_000,
      batchSize: 5,
      maxBatches: 2,
      pauseMs: 1,
    });
    expect(await pruner.runOnce()).toEqual({ 'processed events': 10 });
    expect(await pruner.runOnce()).toEqual({ 'processed events': 2 });
    await pruner.stop();
  });
});
