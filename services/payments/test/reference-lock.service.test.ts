import { startRedisServer, type LocalRedisServer } from '@dzpay/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectOneOpensSale,
  qrToken,
  refusal,
  startPaymentsHarness,
  type PaymentsHarness,
} from './harness.ts';

/**
 * The reference lock's Redis gate with Redis gone: attempts go straight to Postgres,
 * which still decides who holds a sale. Payments counts in a redis-server of this
 * file's own, killed and restarted here (the machine's shared one is never stopped).
 * A single-use QR token passes the same gate as a product reference (the product
 * flow through the gateway is in system/redis-down.system.test.ts).
 */

let server: LocalRedisServer;
let h: PaymentsHarness;

beforeAll(async () => {
  server = await startRedisServer();
  h = await startPaymentsHarness('payments-reference-lock', {
    REDIS_URL: server.url,
    SWEEP_INTERVAL_MS: '3600000',
  });
  await ready(h.runtime.redis!);
});
afterAll(async () => {
  await h?.stop();
  await server?.stop();
});

function ready(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

/** The gate keys payments wrote in our Redis. */
async function gates(): Promise<string[]> {
  const redis = new Redis(server.url);
  const keys = await redis.keys(`${h.infra.redisPrefix}lock:*`);
  await redis.quit();
  return keys;
}

describe('the reference lock without Redis', () => {
  it('opens an attempt and refuses a second one for the same sale, by Postgres alone', async () => {
    await server.kill();
    const qr = qrToken();
    const first = await h.startQr(qr);
    expect(first.paymentId).toBeTruthy();
    expect(await refusal(h.startQr(qr))).toBe('REFERENCE409_LOCKED');
    const rows = await h.db<{ status: string }[]>`
      select status from payments where reference = ${qr}`;
    expect(rows.map((row) => row.status)).toEqual(['pending']);
  });

  it('lets many payers race for one sale without Redis: exactly one opens it', async () => {
    expect(server.running).toBe(false);
    await expectOneOpensSale(h, 10);
  });

  it('uses the Redis gate again once Redis is back', async () => {
    await server.restart();
    await ready(h.runtime.redis!);
    const qr = qrToken();
    await h.startQr(qr);
    expect(await refusal(h.startQr(qr))).toBe('REFERENCE409_LOCKED');
    expect(await gates()).toHaveLength(1);
  });
});
