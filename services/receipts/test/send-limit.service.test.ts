import { randomUUID } from 'node:crypto';
import { connectRedis } from '@dzpay/platform';
import {
  isolatedInfra,
  startRedisServer,
  type IsolatedInfra,
  type LocalRedisServer,
} from '@dzpay/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptSendLimit } from '../src/adapters/send-limit.ts';

let infra: IsolatedInfra;
let redis: Redis;

beforeAll(async () => {
  infra = await isolatedInfra('receipts-send-limit');
  redis = connectRedis(infra.redisUrl, infra.redisPrefix);
  // Before it is connected the limit counts in memory: this test is about Redis.
  await ready(redis);
});
afterAll(async () => {
  await redis?.quit();
  await infra?.cleanup();
});

describe('the receipt send limit', () => {
  it('counts each mode on its own: test keys never spend the live budget', async () => {
    const limit = receiptSendLimit(redis, 3600);
    const merchantId = randomUUID();
    const test = { merchantId, mode: 'test' as const };
    const live = { merchantId, mode: 'live' as const };
    expect(await limit.take(test, 2)).toEqual({ ok: true });
    expect(await limit.take(test, 2)).toEqual({ ok: true });
    expect(await limit.take(test, 2)).toMatchObject({ ok: false });
    expect(await limit.take(live, 2)).toEqual({ ok: true });
    expect(await limit.take(live, 2)).toEqual({ ok: true });
    // A place given back (the mail server refused the email) can be taken again.
    await limit.giveBack(live, 2);
    expect(await limit.take(live, 2)).toEqual({ ok: true });
    expect(await limit.take(live, 2)).toMatchObject({ ok: false });
  });
});

describe('the receipt send limit without Redis', () => {
  // A redis-server of this file's own, killed and restarted (never the shared one).
  let server: LocalRedisServer;
  const clients: Redis[] = [];
  const client = async () => {
    const redis = connectRedis(server.url, 'receipts-test:');
    clients.push(redis);
    await ready(redis);
    return redis;
  };
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const redis of clients) await redis.quit();
    await server?.stop();
  });

  it('keeps sending, each replica within its share, and shares the count again once Redis is back', async () => {
    // Two replicas, 5 emails an hour: each may send ceil(5 / 2) = 3 while Redis is down.
    const [a, b] = [
      receiptSendLimit(await client(), 3600, 2),
      receiptSendLimit(await client(), 3600, 2),
    ];
    const merchant = { merchantId: randomUUID(), mode: 'live' as const };
    expect(await a.take(merchant, 5)).toEqual({ ok: true });

    await server.kill();
    const takes = async (limit: typeof a, count: number) => {
      const outcomes: boolean[] = [];
      for (let i = 0; i < count; i++) outcomes.push((await limit.take(merchant, 5)).ok);
      return outcomes;
    };
    // Answered, never an error (the handler's 503): refused only past the share.
    expect(await takes(a, 4)).toEqual([true, true, true, false]);
    expect(await takes(b, 4)).toEqual([true, true, true, false]);
    const refused = await b.take(merchant, 5);
    expect(refused.ok || refused.retryAfterSeconds).toBeGreaterThan(0);
    // A place given back in memory (the mail server refused the email) can be taken again.
    const other = { merchantId: randomUUID(), mode: 'test' as const };
    for (let i = 0; i < 3; i++) expect(await a.take(other, 5)).toEqual({ ok: true });
    await a.giveBack(other, 5);
    expect(await a.take(other, 5)).toEqual({ ok: true });
    expect(await a.take(other, 5)).toMatchObject({ ok: false });

    await server.restart();
    await Promise.all(clients.map(ready));
    // A fresh server: the five of the hour are shared by both replicas again.
    const fresh = { merchantId: randomUUID(), mode: 'live' as const };
    const shared: boolean[] = [];
    for (const limit of [a, b, a, b, a, b]) shared.push((await limit.take(fresh, 5)).ok);
    expect(shared).toEqual([true, true, true, true, true, false]);
  });
});

function ready(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}
