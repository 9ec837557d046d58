import { describe, expect, it } from 'vitest';
import {
  attemptsCache,
  type AttemptsSource,
  type StoredAttempt,
} from '../src/adapters/attempts-cache.ts';

const scope = { merchantId: '00000000-0000-4000-8000-00000000000a', mode: 'test' as const };
const attempt = (status: StoredAttempt['status'], revision = 1): StoredAttempt => ({
  paymentId: '00000000-0000-4000-8000-000000000001',
  status,
  amount: 100_00,
  currency: 'DZD',
  orderId: null,
  paidAt: null,
  locksReference: true,
  lockExpiresAt: null,
  lockHasExpiry: false,
  webhookDelivery: null,
  createdAt: new Date('2030-01-01T00:00:00.000Z'),
  updatedAt: new Date('2030-01-01T00:00:00.000Z'),
  revision,
  paymentVersion: revision,
});

/** A source whose answer the test sets, counting reads; `hold` makes the next read wait. */
function fakeSource() {
  let current: StoredAttempt[] = [attempt('pending')];
  let reads = 0;
  let held: (() => void) | undefined;
  const source: AttemptsSource = async () => {
    reads++;
    const answer = current;
    if (held) await new Promise<void>((resolve) => (held = resolve));
    return answer;
  };
  return {
    source,
    set: (attempts: StoredAttempt[]) => (current = attempts),
    reads: () => reads,
    hold: () => (held = () => undefined),
    release: () => {
      const resume = held;
      held = undefined;
      resume?.();
    },
  };
}

describe('attempts cache', () => {
  it('answers a second query from memory, and reads again once the reference changed', async () => {
    const db = fakeSource();
    const cache = attemptsCache(db.source, { ttlMs: 60_000, maxEntries: 10 });
    expect(await cache.attemptsOf(scope, 'REF')).toEqual([attempt('pending')]);
    expect(await cache.attemptsOf(scope, 'REF')).toEqual([attempt('pending')]);
    expect(db.reads()).toBe(1);

    db.set([attempt('success')]);
    cache.forget({ ...scope, reference: 'REF' });
    expect(await cache.attemptsOf(scope, 'REF')).toEqual([attempt('success')]);
    expect(db.reads()).toBe(2);
  });

  it('keeps references of other merchants and modes apart', async () => {
    const db = fakeSource();
    const cache = attemptsCache(db.source, { ttlMs: 60_000, maxEntries: 10 });
    await cache.attemptsOf(scope, 'REF');
    await cache.attemptsOf({ ...scope, mode: 'live' }, 'REF');
    await cache.attemptsOf({ ...scope, merchantId: '00000000-0000-4000-8000-00000000000b' }, 'REF');
    expect(db.reads()).toBe(3);
    cache.forget({ ...scope, mode: 'live', reference: 'REF' });
    await cache.attemptsOf(scope, 'REF');
    expect(db.reads()).toBe(3);
  });

  it('never stores a read that a change overtook', async () => {
    const db = fakeSource();
    const cache = attemptsCache(db.source, { ttlMs: 60_000, maxEntries: 10 });
    db.hold();
    const stale = cache.attemptsOf(scope, 'REF');
    await Promise.resolve();
    // The change commits while the read is in flight: its answer may be the old state.
    db.set([attempt('success')]);
    cache.forget({ ...scope, reference: 'REF' });
    db.release();
    expect(await stale).toEqual([attempt('pending')]);
    expect(await cache.attemptsOf(scope, 'REF')).toEqual([attempt('success')]);
  });

  it('reads again after the time limit, and drops the oldest entry when full', async () => {
    let clock = 0;
    const db = fakeSource();
    const cache = attemptsCache(db.source, { ttlMs: 1_000, maxEntries: 2, now: () => clock });
    await cache.attemptsOf(scope, 'A');
    clock = 1_000;
    await cache.attemptsOf(scope, 'A');
    expect(db.reads()).toBe(2);
    await cache.attemptsOf(scope, 'B');
    await cache.attemptsOf(scope, 'C');
    expect(cache.size()).toBe(2);
    await cache.attemptsOf(scope, 'A');
    expect(db.reads()).toBe(5);
  });

  it('reads every time when its time limit is 0, and forgets everything on clear', async () => {
    const db = fakeSource();
    const off = attemptsCache(db.source, { ttlMs: 0, maxEntries: 10 });
    await off.attemptsOf(scope, 'REF');
    await off.attemptsOf(scope, 'REF');
    expect(db.reads()).toBe(2);
    const on = attemptsCache(db.source, { ttlMs: 60_000, maxEntries: 10 });
    await on.attemptsOf(scope, 'REF');
    on.clear();
    await on.attemptsOf(scope, 'REF');
    expect(db.reads()).toBe(4);
  });
});
