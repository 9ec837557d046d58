import { describe, expect, it } from 'vitest';
import type { KeyOwner } from '@dzpay/accounts';
import { keyOwnerCache } from '../src/adapters/key-owner-cache.ts';

const owner = (merchantId: string): KeyOwner => ({
  keyId: 'k',
  keyHash: Buffer.alloc(32),
  mode: 'test',
  merchant: {
    id: merchantId,
    name: 'm',
    active: true,
    feeDzd: 0,
    minAmount: 5000,
    maxAmount: 100_000_000,
    walletId: null,
    receiptEmailsPerHour: 20,
    createdAt: new Date(0),
  },
});

/** An in-memory stand-in for the accounts table that counts its lookups. */
function table(initial: Record<string, KeyOwner>) {
  const rows = new Map(Object.entries(initial));
  let lookups = 0;
  return {
    rows,
    lookups: () => lookups,
    findKeyOwner: (hash: Buffer) => {
      lookups++;
      return Promise.resolve(rows.get(hash.toString('hex')) ?? null);
    },
  };
}

const hash = (hex: string) => Buffer.from(hex, 'hex');

describe('keyOwnerCache', () => {
  it('answers repeated lookups of a known key from memory until the time limit', async () => {
    let clock = 0;
    const source = table({ aa: owner('m1') });
    const cache = keyOwnerCache(source, { ttlMs: 1000, maxEntries: 10, now: () => clock });
    await cache.findKeyOwner(hash('aa'));
    await cache.findKeyOwner(hash('aa'));
    expect(source.lookups()).toBe(1);
    clock = 1000;
    await cache.findKeyOwner(hash('aa'));
    expect(source.lookups()).toBe(2);
  });

  it('never remembers unknown keys', async () => {
    const source = table({});
    const cache = keyOwnerCache(source, { ttlMs: 1000, maxEntries: 10 });
    expect(await cache.findKeyOwner(hash('bb'))).toBeNull();
    expect(await cache.findKeyOwner(hash('bb'))).toBeNull();
    expect(source.lookups()).toBe(2);
    expect(cache.size()).toBe(0);
  });

  it('forgets everything on invalidation', async () => {
    const source = table({ aa: owner('m1') });
    const cache = keyOwnerCache(source, { ttlMs: 60_000, maxEntries: 10 });
    await cache.findKeyOwner(hash('aa'));
    source.rows.delete('aa');
    cache.invalidate();
    expect(await cache.findKeyOwner(hash('aa'))).toBeNull();
  });

  it('does not store a lookup that was under way when an invalidation came', async () => {
    let release: () => void = () => {};
    const slow = {
      findKeyOwner: () =>
        new Promise<KeyOwner>((resolve) => (release = () => resolve(owner('stale')))),
    };
    const cache = keyOwnerCache(slow, { ttlMs: 60_000, maxEntries: 10 });
    const pending = cache.findKeyOwner(hash('aa'));
    cache.invalidate();
    release();
    await pending;
    expect(cache.size()).toBe(0);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const source = table({ a1: owner('1'), a2: owner('2'), a3: owner('3') });
    const cache = keyOwnerCache(source, { ttlMs: 60_000, maxEntries: 2 });
    for (const key of ['a1', 'a2', 'a3']) await cache.findKeyOwner(hash(key));
    expect(cache.size()).toBe(2);
    await cache.findKeyOwner(hash('a1'));
    expect(source.lookups()).toBe(4);
  });
});
