import { statusChangeOf } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { readThroughCache } from '../src/read-through-cache.ts';

type Value = { name: string; revisions: Record<string, number> };
const value = (name: string, revisions: Record<string, number>): Value => ({ name, revisions });

function counted(answer: Value) {
  const source = { reads: 0, read: () => (source.reads++, Promise.resolve(answer)) };
  return source;
}

describe('read-through cache, told which revision a change reached', () => {
  it('stores no value older than a change heard, for as long as an entry could live', async () => {
    let clock = 0;
    const cache = readThroughCache<Value>({
      ttlMs: 1_000,
      maxEntries: 10,
      revisionsOf: (v) => v.revisions,
      now: () => clock,
    });
    cache.forget('k', { part: 'a', revision: 2 });
    const old = counted(value('old', { a: 1 }));
    await cache.get('k', old.read);
    await cache.get('k', old.read);
    expect(old.reads).toBe(2);
    // A part the value does not have at all is older than any revision of it.
    cache.forget('k', { part: 'b', revision: 1 });
    const withoutB = counted(value('no b', { a: 2 }));
    await cache.get('k', withoutB.read);
    await cache.get('k', withoutB.read);
    expect(withoutB.reads).toBe(2);
    const current = counted(value('current', { a: 2, b: 1 }));
    await cache.get('k', current.read);
    expect((await cache.get('k', current.read)).name).toBe('current');
    expect(current.reads).toBe(1);
    // Other keys are not held back, and what was heard ages out with the entries' limit.
    const other = counted(value('other', {}));
    await cache.get('j', other.read);
    await cache.get('j', other.read);
    expect(other.reads).toBe(1);
    clock = 2_000;
    cache.forget('k');
    const later = counted(value('old again', { a: 1 }));
    await cache.get('k', later.read);
    await cache.get('k', later.read);
    expect(later.reads).toBe(1);
  });

  it('keeps the highest revision heard of each part, and a bounded number of keys', async () => {
    const cache = readThroughCache<Value>({
      ttlMs: 60_000,
      maxEntries: 2,
      revisionsOf: (v) => v.revisions,
    });
    cache.forget('k', { part: 'a', revision: 3 });
    cache.forget('k', { part: 'a', revision: 2 });
    const two = counted(value('two', { a: 2 }));
    await cache.get('k', two.read);
    await cache.get('k', two.read);
    expect(two.reads).toBe(2);
    // Two more keys heard of: the oldest (k) is dropped.
    cache.forget('x', { part: 'a', revision: 1 });
    cache.forget('y', { part: 'a', revision: 1 });
    await cache.get('k', two.read);
    await cache.get('k', two.read);
    expect(two.reads).toBe(3);
  });
});

describe('status change notifications with revisions', () => {
  const merchantId = '8d5e2f0a-9c1b-4a3e-8f7d-2b6c1a0e9d4f';
  const paymentId = '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';

  it('name the attempt and its revision as the trigger writes them', () => {
    // What json_build_array(merchant_id, mode, reference, payment_id, revision)::text writes.
    expect(statusChangeOf(`["${merchantId}", "test", "BOOK-1", "${paymentId}", 3]`)).toEqual({
      merchantId,
      mode: 'test',
      reference: 'BOOK-1',
      attempt: { paymentId, revision: 3 },
    });
    expect(statusChangeOf(`["${merchantId}", "test", "BOOK-1"]`)).toEqual({
      merchantId,
      mode: 'test',
      reference: 'BOOK-1',
    });
    expect(statusChangeOf(`["${merchantId}", "test", "BOOK-1", "${paymentId}", "3"]`)).toBeNull();
  });
});
