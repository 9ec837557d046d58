import { createHash } from 'node:crypto';
import { connectRedis, type Redis } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formTokens } from '../src/adapters/form-tokens.ts';
import { loginThrottle } from '../src/adapters/login-throttle-store.ts';
import { dashboardSessions, type SessionRecord } from '../src/adapters/sessions.ts';

// The dashboard's Redis adapters against the real Redis, under this file's own prefix.

let infra: IsolatedInfra;
let redis: Redis;
let now = Date.now();
const clock = () => now;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');

const record = (userId: string): SessionRecord => ({
  userId,
  merchantId: '6f1c1f8e-7b76-4f0e-9d0e-2f7f4d3c2b1a',
  mode: 'test',
  language: 'fr',
  csrfToken: 'token',
  createdAt: now,
});

beforeAll(async () => {
  infra = await isolatedInfra('dashboard-sessions');
  redis = connectRedis(infra.redisUrl, infra.redisPrefix);
});
afterAll(async () => {
  redis?.disconnect();
  await infra?.cleanup();
});

describe('dashboard sessions in Redis', () => {
  it('stores a session under the hash of its id, with the idle expiry', async () => {
    const sessions = dashboardSessions(redis, { idleSeconds: 600, maxSeconds: 3600 }, clock);
    const id = await sessions.create(record('user-a'));
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await sessions.read(id)).toMatchObject({ userId: 'user-a', language: 'fr' });
    const keys = await redis.keys(`${infra.redisPrefix}dashboard:session:*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(id);
    const ttl = await redis.ttl(keys[0]!.slice(infra.redisPrefix.length));
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(600);
    expect(await sessions.read('not-a-session-id')).toBeNull();
    await sessions.destroy(id, 'user-a');
    expect(await sessions.read(id)).toBeNull();
  });

  it('ends a session past its maximum age, however recently used', async () => {
    const sessions = dashboardSessions(redis, { idleSeconds: 600, maxSeconds: 3600 }, clock);
    const id = await sessions.create(record('user-b'));
    now += 3_599_000;
    expect(await sessions.read(id)).not.toBeNull();
    now += 2_000;
    expect(await sessions.read(id)).toBeNull();
  });

  it('keeps changes (language, flash) and ends every session of one user only', async () => {
    now = Date.now();
    const sessions = dashboardSessions(redis, { idleSeconds: 600, maxSeconds: 3600 }, clock);
    const phone = await sessions.create(record('user-c'));
    const laptop = await sessions.create(record('user-c'));
    const other = await sessions.create(record('user-d'));
    const changed = { ...(await sessions.read(phone))!, language: 'ar' as const };
    await sessions.save(phone, changed);
    expect((await sessions.read(phone))?.language).toBe('ar');
    expect(await sessions.destroyAllOf('user-c')).toBe(2);
    expect(await sessions.read(phone)).toBeNull();
    expect(await sessions.read(laptop)).toBeNull();
    expect(await sessions.read(other)).not.toBeNull();
  });
});

describe('the sign-in throttle in Redis', () => {
  const limits = {
    perAddress: 5,
    perAccountAddress: 3,
    perAccount: 6,
    perDevice: 2,
    windowSeconds: 60,
  };

  it('counts an account per address: strangers elsewhere do not lock it from here', async () => {
    const throttle = loginThrottle(redis, limits);
    for (let i = 0; i < 3; i++) await throttle.recordFailure('Amina@Shop.dz', '10.0.1.1');
    expect(await throttle.check('amina@shop.dz', '10.0.1.1')).toMatchObject({
      allowed: false,
      by: 'account',
    });
    // The same account from another address, and another account from this one.
    expect(await throttle.check('amina@shop.dz', '10.0.1.2')).toEqual({ allowed: true });
    expect(await throttle.check('karim@shop.dz', '10.0.1.1')).toEqual({ allowed: true });
    await throttle.recordSuccess('AMINA@shop.dz', '10.0.1.1');
    expect(await throttle.check('amina@shop.dz', '10.0.1.1')).toEqual({ allowed: true });
  });

  it('counts an address across accounts', async () => {
    const throttle = loginThrottle(redis, limits);
    for (let i = 0; i < 5; i++) await throttle.recordFailure(`x${i}@shop.dz`, '10.0.2.50');
    const verdict = await throttle.check('new@shop.dz', '10.0.2.50');
    expect(verdict).toMatchObject({ allowed: false, by: 'address' });
    expect(verdict.allowed === false && verdict.retryAfterSeconds).toBeGreaterThan(50);
  });

  it('locks unknown places out of an account guessed from many, never its known device', async () => {
    const throttle = loginThrottle(redis, limits);
    const device = await throttle.recordSuccess('owner@shop.dz', '10.0.3.1');
    expect(device).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (let i = 0; i < 6; i++) await throttle.recordFailure('owner@shop.dz', `10.0.4.${i}`);
    expect(await throttle.check('owner@shop.dz', '10.0.4.99')).toMatchObject({
      allowed: false,
      by: 'account',
    });
    // The owner's browser, from anywhere, even from an address strangers used.
    expect(await throttle.check('owner@shop.dz', '10.0.4.1', device)).toEqual({ allowed: true });
    // Its cookie names a known device of this account only, and a made-up one nothing.
    expect(await throttle.check('other@shop.dz', '10.0.4.1', device)).toEqual({ allowed: true });
    for (let i = 0; i < 3; i++) await throttle.recordFailure('other@shop.dz', '10.0.4.1', device);
    expect((await throttle.check('other@shop.dz', '10.0.4.1', device)).allowed).toBe(false);
    expect((await throttle.check('owner@shop.dz', '10.0.4.5', 'A'.repeat(43))).allowed).toBe(false);
    // A known device's own failures lock it alone; a success there keeps its token.
    await throttle.recordFailure('owner@shop.dz', '10.0.3.1', device);
    await throttle.recordFailure('owner@shop.dz', '10.0.3.1', device);
    expect((await throttle.check('owner@shop.dz', '10.0.3.1', device)).allowed).toBe(false);
    // A reset forgives what unknown places counted.
    await throttle.forgive('owner@shop.dz', '10.0.4.99');
    expect(await throttle.check('owner@shop.dz', '10.0.4.99')).toEqual({ allowed: true });
  });
});

describe('the pre-session form tokens in Redis', () => {
  it('verify only a pair the server issued, stored under the hash of the nonce', async () => {
    const tokens = formTokens(redis, 120);
    const issued = await tokens.issue();
    expect(issued.nonce).not.toBe(issued.token);
    expect(await tokens.verify(issued.nonce, issued.token)).toBe(true);
    expect(await redis.exists(`dashboard:form-token:${issued.nonce}`)).toBe(0);
    expect(await redis.ttl(`dashboard:form-token:${sha256(issued.nonce)}`)).toBeGreaterThan(100);
    // Planted pairs: an equal cookie and field, or a nonce with another pair's token.
    const other = await tokens.issue();
    expect(await tokens.verify(issued.nonce, issued.nonce)).toBe(false);
    expect(await tokens.verify('P'.repeat(43), 'P'.repeat(43))).toBe(false);
    expect(await tokens.verify(issued.nonce, other.token)).toBe(false);
    expect(await tokens.verify(undefined, issued.token)).toBe(false);
    expect(await tokens.verify('not a nonce', issued.token)).toBe(false);
  });

  it('give the same token again while it lasts, and none once spent', async () => {
    const tokens = formTokens(redis, 120);
    const issued = await tokens.issue();
    await redis.expire(`dashboard:form-token:${sha256(issued.nonce)}`, 5);
    expect(await tokens.current(issued.nonce)).toBe(issued.token);
    expect(await redis.ttl(`dashboard:form-token:${sha256(issued.nonce)}`)).toBeGreaterThan(100);
    expect(await tokens.current('P'.repeat(43))).toBeNull();
    await tokens.consume(issued.nonce);
    expect(await tokens.current(issued.nonce)).toBeNull();
    expect(await tokens.verify(issued.nonce, issued.token)).toBe(false);
  });
});
