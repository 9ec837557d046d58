import { randomUUID } from 'node:crypto';
import { AppError } from '@dzpay/platform';
import { startRedisServer, type LocalRedisServer } from '@dzpay/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * The reference lock's Redis gate with Redis gone: attempts go straight to Postgres,
 * which still decides who holds a sale. Payments counts in a redis-server of this
 * file's own, killed and restarted here (the machine's shared one is never stopped).
 * A single-use QR token passes the same gate as a product reference (the product
 * flow through the gateway is in system/redis-down.service.test.ts).
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

const token = () => `QR${randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase()}`;

async function refusal(start: Promise<unknown>): Promise<string> {
  const error = await start.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error.code;
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
    const qr = token();
    const first = await h.startQr(qr);
    expect(first.paymentId).toBeTruthy();
    expect(await refusal(h.startQr(qr))).toBe('REFERENCE409_LOCKED');
    const rows = await h.db<{ status: string }[]>`
      select status from payments where reference = ${qr}`;
    expect(rows.map((row) => row.status)).toEqual(['pending']);
  });

  it('lets many payers race for one sale without Redis: exactly one opens it', async () => {
    expect(server.running).toBe(false);
    const qr = token();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        h.startQr(qr).then(
          () => 'opened',
          (e: unknown) => (e instanceof AppError ? e.code : String(e)),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'opened')).toHaveLength(1);
    expect(new Set(outcomes.filter((o) => o !== 'opened'))).toEqual(
      new Set(['REFERENCE409_LOCKED']),
    );
  });

  it('uses the Redis gate again once Redis is back', async () => {
    await server.restart();
    await ready(h.runtime.redis!);
    const qr = token();
    await h.startQr(qr);
    expect(await refusal(h.startQr(qr))).toBe('REFERENCE409_LOCKED');
    expect(await gates()).toHaveLength(1);
  });
});
