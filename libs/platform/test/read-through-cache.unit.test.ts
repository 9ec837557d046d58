import { describe, expect, it } from 'vitest';
import { readThroughCache } from '../src/read-through-cache.ts';

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
  });
});
