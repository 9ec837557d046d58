import { RateLimitError } from '@dzpay/contracts';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('rate-limit', { RATE_LIMIT_PER_MINUTE: '5' });
});
afterAll(() => stack?.stop());

describe('rate limit of the QR endpoints (not in the spec: per key, per minute)', () => {
  it('answers 429 {statusCode, message} past the limit, per key, counted in Redis', async () => {
    const merchant = await stack.merchant();
    const token = await stack.qrCode(merchant.id);
    const body = { token, amounts: [50], singleUse: false };
    const headers = { 'x-api-key': merchant.testKey };

    for (let i = 0; i < 5; i++) {
      expect((await stack.post('/set-qr-config', body, headers)).status).toBe(200);
    }
    const limited = await stack.post('/set-qr-config', body, headers);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const payload = (await limited.json()) as Record<string, unknown>;
    expect(Object.keys(payload).sort()).toEqual(['message', 'statusCode']);
    expect(RateLimitError.parse(payload).statusCode).toBe(429);

    // Another key of the same merchant has its own budget.
    const liveToken = await stack.qrCode(merchant.id, 'live');
    const live = await stack.post(
      '/set-qr-config',
      { ...body, token: liveToken },
      { 'x-api-key': merchant.liveKey },
    );
    expect(live.status).toBe(200);

    // The count lives in Redis under this run's prefix, so every replica shares it.
    const redis = new Redis(stack.infra.redisUrl);
    const keys = await redis.keys(`${stack.infra.redisPrefix}rate:*`);
    await redis.quit();
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(keys.join()).not.toContain(merchant.testKey);
  });

  it('counts made-up keys on the caller address: a new guess each time buys no fresh budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const guess = { 'x-api-key': `pk_test_${String(i).repeat(43)}` };
      const response = await stack.post('/set-qr-config', { token: 'QR1' }, guess);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });
});
