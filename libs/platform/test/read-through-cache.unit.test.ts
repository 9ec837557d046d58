import { describe, expect, it } from 'vitest';
import { readThroughCache } from '../src/read-through-cache.ts';

/** A source that answers `value` and counts its reads. */
function counted(value: string) {
  let reads = 0;
  return {
    reads: () => reads,
    read: () => {
      reads++;
      return Promise.resolve(value);
    },
  };
}

describe('read-through cache', () => {
  it('keeps only what `keep` accepts', async () => {
    const cache = readThroughCache<string>({
      ttlMs: 60_000,
      maxEntries: 10,
      keep: (value) => value !== 'missing',
    });
    let reads = 0;
    const read = (value: string) => () => {
      reads++;
      return Promise.resolve(value);
    };
    await cache.get('a', read('missing'));
    await cache.get('a', read('missing'));
    expect(reads).toBe(2);
    await cache.get('b', read('found'));
    expect(await cache.get('b', read('other'))).toBe('found');
    expect(reads).toBe(3);
    expect(cache.size()).toBe(1);
  });

  it('answers from memory until the time limit, then reads again', async () => {
    let clock = 0;
    const cache = readThroughCache<string>({ ttlMs: 1000, maxEntries: 10, now: () => clock });
    const source = counted('v');
    await cache.get('a', source.read);
    clock = 999;
    await cache.get('a', source.read);
    expect(source.reads()).toBe(1);
    clock = 1000;
    await cache.get('a', source.read);
    expect(source.reads()).toBe(2);
  });

  it('stores nothing with a time limit of 0', async () => {
    const cache = readThroughCache<string>({ ttlMs: 0, maxEntries: 10 });
    const source = counted('v');
    await cache.get('a', source.read);
    await cache.get('a', source.read);
    expect(source.reads()).toBe(2);
    expect(cache.size()).toBe(0);
  });

  it('does not store a read that was under way when everything was cleared', async () => {
    const cache = readThroughCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    let release: () => void = () => {};
    const pending = cache.get(
      'a',
      () => new Promise<string>((resolve) => (release = () => resolve('stale'))),
    );
    cache.clear();
    release();
    expect(await pending).toBe('stale');
    expect(cache.size()).toBe(0);
  });

  it('keeps at most maxEntries, dropping the oldest first', async () => {
    const cache = readThroughCache<string>({ ttlMs: 60_000, maxEntries: 2 });
    const source = counted('v');
    for (const key of ['a1', 'a2', 'a3']) await cache.get(key, source.read);
    expect(cache.size()).toBe(2);
    await cache.get('a3', source.read);
    expect(source.reads()).toBe(3);
    await cache.get('a1', source.read);
    expect(source.reads()).toBe(4);
  });
});
