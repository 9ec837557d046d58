import postgres from 'postgres';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, migrate, type Sql } from '../src/db.ts';

let infra: IsolatedInfra;
const pools: Sql[] = [];
const pool = (schema: string) => {
  const sql = connectPostgres(infra.databaseUrl, schema, 2);
  pools.push(sql);
  return sql;
};

beforeAll(async () => {
  infra = await isolatedInfra('platform-db');
});
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
  await infra?.cleanup();
});

describe('migrate', () => {
  it('applies pending files in order into the service schema, once', async () => {
    const sql = pool('shop');
    const dir = new URL('./migrations-ok/', import.meta.url);
    expect(await migrate(sql, 'shop', dir)).toEqual(['001_create_items.sql', '002_add_price.sql']);
    expect(await migrate(sql, 'shop', dir)).toEqual([]);

    await sql`insert into items (name, price_centimes) values ('tea', 25000)`;
    const [row] = await sql<{ name: string; price_centimes: number }[]>`select * from shop.items`;
    expect(row).toMatchObject({ name: 'tea', price_centimes: 25000 });
  });

  it('lets replicas starting together apply each file exactly once', async () => {
    const dir = new URL('./migrations-ok/', import.meta.url);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => migrate(pool('race'), 'race', dir)),
    );
    expect(results.flat()).toEqual(['001_create_items.sql', '002_add_price.sql']);
    const [count] = await pool('race')<
      { n: number }[]
    >`select count(*)::int as n from race.schema_migrations`;
    expect(count!.n).toBe(2);
  });

  it('leaves nothing half applied when a file fails', async () => {
    const sql = pool('broken');
    await expect(
      migrate(sql, 'broken', new URL('./migrations-bad/', import.meta.url)),
    ).rejects.toThrow(/no_such_table/);
    const [exists] = await sql<{ found: boolean }[]>`
      select exists (select 1 from information_schema.schemata where schema_name = 'broken') as found`;
    expect(exists!.found).toBe(false);
  });

  it('makes the platform outbox first when asked, and takes over one older migrations made', async () => {
    const dir = new URL('./migrations-ok/', import.meta.url);
    const fresh = pool('fresh_outbox');
    expect(await migrate(fresh, 'fresh_outbox', dir, undefined, { outbox: true })).toEqual([
      '000_outbox.sql',
      '001_create_items.sql',
      '002_add_price.sql',
    ]);
    await fresh`insert into outbox (id, subject, payload, trace_carrier)
      values (gen_random_uuid(), 's', '{}', '{}')`;

    // A schema whose own migrations made the outbox before the platform did (the
    // services' databases before the outbox was written once): the platform's file
    // changes nothing there and is recorded, so it never runs again.
    const old = pool('old_outbox');
    await old.unsafe(`create schema old_outbox;
      create table old_outbox.outbox (id uuid primary key, subject text not null,
        payload jsonb not null, created_at timestamptz not null default now(),
        published_at timestamptz, trace_carrier jsonb);
      insert into old_outbox.outbox (id, subject, payload) values (gen_random_uuid(), 's', '{}')`);
    expect(await migrate(old, 'old_outbox', dir, undefined, { outbox: true })).toContain(
      '000_outbox.sql',
    );
    expect(await migrate(old, 'old_outbox', dir, undefined, { outbox: true })).toEqual([]);
    const [kept] = await old<{ n: number }[]>`select count(*)::int as n from old_outbox.outbox`;
    expect(kept!.n).toBe(1);
    // Both wake the relay on insert, through the same trigger.
    const triggers = await old<{ schema: string }[]>`
      select event_object_schema as schema from information_schema.triggers
      where trigger_name = 'outbox_inserted' and event_object_schema in ('fresh_outbox', 'old_outbox')
      order by 1`;
    expect(triggers.map((row) => row.schema)).toEqual(['fresh_outbox', 'old_outbox']);
  });

  it('returns bigint columns as numbers', async () => {
    const sql = pool('numbers');
    const [row] = await sql<{ n: number; list: number[] }[]>`
      select 100000000::bigint as n, array[1, 2]::bigint[] as list`;
    expect(row).toEqual({ n: 100000000, list: [1, 2] });
  });
});

describe('postgres.js transactions under a full pipeline', () => {
  // patches/postgres@3.4.9.patch: sql.begin() reserves its connection even when its BEGIN
  // fills the connection's pipeline. Unpatched, the connection went back to the pool
  // with the transaction open (UNSAFE_TRANSACTION, or another caller's queries committed
  // inside it). A pipeline of 0 makes every BEGIN fill it, so the race is certain here.
  it('never lets two transactions, or a transaction and other queries, share a connection', async () => {
    for (let round = 0; round < 10; round++) {
      // max_pipeline is a postgres.js option its type declarations do not list.
      const options = { max: 3, max_pipeline: 0, onnotice: () => {} };
      const sql = postgres(infra.databaseUrl, options);
      try {
        const work: Promise<unknown>[] = [];
        for (let i = 0; i < 3; i++) work.push(sql`select pg_sleep(0.05)`);
        for (let i = 0; i < 6; i++) work.push(sql`select ${i}::int as n`);
        for (let i = 0; i < 5; i++) {
          work.push(
            sql.begin(async (tx) => {
              await tx`select 1`;
              await tx`select 2`;
            }),
          );
        }
        const failed = (await Promise.allSettled(work)).filter((r) => r.status === 'rejected');
        expect(failed.map((r) => String(r.reason))).toEqual([]);
      } finally {
        await sql.end();
      }
    }
  });
});

describe('postgres.js when the database terminates its connections', () => {
  // patches/postgres@3.4.9.patch, found by the fault campaign's terminate-postgres fault
  // (docs/reliability.md). Unpatched: a write deferred past the socket's close threw from
  // a timer and killed the process (upstream #1208, #1154); a query sent between the
  // socket's 'error' and 'close' never settled; a released reserved connection went back
  // to the pool without a socket, failing every query routed to it; the dead backend's
  // 57P01 failed the first query of the next connection.
  const admin = () => postgres(infra.databaseUrl, { max: 1, onnotice: () => {} });
  const settled = <T>(promise: Promise<T>, ms = 5_000) =>
    Promise.race([
      promise.then(
        () => 'ok',
        (error: { code?: string }) => `rejected ${error.code ?? 'error'}`,
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('hung'), ms)),
    ]);
  const terminateAll = async (killer: postgres.Sql, applicationName: string) => {
    await killer`
      select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = ${applicationName} and pid <> pg_backend_pid()`;
  };

  it('fails the queries of a reserved connection whose backend died, then serves new ones', async () => {
    const killer = admin();
    const sql = postgres(infra.databaseUrl, { max: 2, onnotice: () => {} });
    try {
      const reserved = await sql.reserve();
      const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await killer`select pg_terminate_backend(${row!.pid}, 5000)`;
      expect(await settled(reserved`select 1`)).toMatch(/^rejected /);
      expect(await settled(reserved`select 1`)).toBe('rejected CONNECTION_CLOSED');
      reserved.release();
      const after = await Promise.all(
        Array.from({ length: 20 }, () => settled(sql`select pg_sleep(0.005)`)),
      );
      expect(after).toEqual(Array(20).fill('ok'));
    } finally {
      await killer.end();
      await sql.end({ timeout: 2 });
    }
  });

  it('settles every query and transaction when all backends are terminated mid-burst, then recovers', async () => {
    const killer = admin();
    const applicationName = `terminated-${Date.now()}`;
    const sql = postgres(infra.databaseUrl, {
      max: 4,
      onnotice: () => {},
      connection: { application_name: applicationName },
    });
    try {
      for (let round = 0; round < 5; round++) {
        const burst: Promise<string>[] = [];
        for (let i = 0; i < 20; i++) burst.push(settled(sql`select pg_sleep(0.02)`));
        for (let i = 0; i < 5; i++) {
          burst.push(
            settled(
              sql.begin(async (tx) => {
                await tx`select pg_sleep(0.02)`;
                await tx`select 1`;
              }),
            ),
          );
        }
        const reserved = sql.reserve().then(async (r) => {
          try {
            await r`select pg_sleep(0.03)`;
            await r`select 1`;
          } finally {
            r.release();
          }
        });
        burst.push(settled(reserved));
        await new Promise((resolve) => setTimeout(resolve, 10));
        await terminateAll(killer, applicationName);
        expect((await Promise.all(burst)).filter((outcome) => outcome === 'hung')).toEqual([]);
      }
      const recovered = await Promise.all([
        ...Array.from({ length: 30 }, () => settled(sql`select 1`)),
        ...Array.from({ length: 10 }, () => settled(sql.begin((tx) => tx`select 1`))),
      ]);
      expect(recovered).toEqual(Array(40).fill('ok'));
    } finally {
      await killer.end();
      await sql.end({ timeout: 2 });
    }
  });
});
