import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { isolatedInfra } from '../src/isolation.ts';
import { freePort } from '../src/processes.ts';

describe('isolatedInfra', () => {
  it('gives each caller its own database and prefixes, and removes them all on cleanup', async () => {
    const [a, b] = await Promise.all([isolatedInfra('same label'), isolatedInfra('same label')]);
    expect(a.databaseUrl).not.toBe(b.databaseUrl);
    expect(a.natsPrefix).not.toBe(b.natsPrefix);
    expect(a.redisPrefix).not.toBe(b.redisPrefix);
    expect(a.env).toMatchObject({ DATABASE_URL: a.databaseUrl, NATS_PREFIX: a.natsPrefix });

    const sql = postgres(a.databaseUrl, { max: 1 });
    await sql`create table probe (id int)`;
    await sql.end();
    const redis = new Redis(a.redisUrl);
    await redis.set(`${a.redisPrefix}probe`, '1');
    const nc = await connect({ servers: a.natsUrl });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: `${a.natsPrefix}_PROBE`, subjects: [`${a.natsPrefix}.probe`] });

    await a.cleanup();

    expect(await redis.exists(`${a.redisPrefix}probe`)).toBe(0);
    await expect(jsm.streams.info(`${a.natsPrefix}_PROBE`)).rejects.toThrow(/stream not found/);
    const other = postgres(b.databaseUrl, { max: 1 });
    const name = new URL(a.databaseUrl).pathname.slice(1);
    const [row] = await other<{ found: boolean }[]>`
      select exists (select 1 from pg_database where datname = ${name}) as found`;
    expect(row!.found).toBe(false);
    await other.end();
    await redis.quit();
    await nc.close();
    await b.cleanup();
  });

  it('finds free ports', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(1024);
  });
});
