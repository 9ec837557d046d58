import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { createDatabase, dropDatabase } from './databases.ts';

/** The resources of one test file: nobody else's run can see or touch them. */
export interface IsolatedInfra {
  /** A database made for this file alone. */
  databaseUrl: string;
  natsUrl: string;
  redisUrl: string;
  /** Prefix of every NATS subject and stream name of this file. */
  natsPrefix: string;
  /** Prefix of every Redis key of this file. */
  redisPrefix: string;
  /** The variables a dzpay service reads, pointing at the resources above. */
  env: Record<string, string>;
  /** Drops the database, the streams and the keys. */
  cleanup(): Promise<void>;
}

/**
 * Makes a database, a NATS prefix and a Redis prefix unique to this test file. Runs
 * never collide, so nothing needs a global clean-up and tests run in parallel.
 */
export async function isolatedInfra(label: string): Promise<IsolatedInfra> {
  const infra = inject('infra');
  const id = `${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(4).toString('hex')}`;
  const database = `dzpay_t_${id}`;
  const databaseUrl = await createDatabase(infra.postgres, database);
  const natsPrefix = `t_${id}`;
  const redisPrefix = `t:${id}:`;

  return {
    databaseUrl,
    natsUrl: infra.nats,
    redisUrl: infra.redis,
    natsPrefix,
    redisPrefix,
    env: {
      DATABASE_URL: databaseUrl,
      NATS_URL: infra.nats,
      REDIS_URL: infra.redis,
      NATS_PREFIX: natsPrefix,
      REDIS_PREFIX: redisPrefix,
      OPS_PORT: '0',
      OPS_HOST: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    },
    async cleanup() {
      await dropDatabase(infra.postgres, database);
      await deleteKeys(infra.redis, redisPrefix);
      await deleteStreams(infra.nats, natsPrefix);
    },
  };
}

async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

async function deleteStreams(url: string, prefix: string): Promise<void> {
  const nc = await connect({ servers: url });
  const jsm = await jetstreamManager(nc);
  for await (const name of jsm.streams.names()) {
    // KV buckets (the partner directory) are streams named KV_<bucket>.
    if (name.startsWith(`${prefix}_`) || name.startsWith(`KV_${prefix}_`)) {
      await jsm.streams.delete(name);
    }
  }
  await nc.close();
}
