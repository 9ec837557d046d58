import { randomUUID } from 'node:crypto';
import { connectRedis } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptSendLimit } from '../src/adapters/send-limit.ts';

let infra: IsolatedInfra;
let redis: Redis;

beforeAll(async () => {
  infra = await isolatedInfra('receipts-send-limit');
  redis = connectRedis(infra.redisUrl, infra.redisPrefix);
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
