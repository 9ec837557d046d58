import { describe, expect, it } from 'vitest';
import { batcher } from '../src/batcher.ts';

/** A write that records each batch it was given and answers when released. */
function recordingWrite(fail: (item: number) => boolean = () => false) {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const write = async (items: readonly number[]) => {
    batches.push([...items]);
    await new Promise<void>((resolve) => gates.push(resolve));
    if (items.some(fail)) throw new Error(`refused ${items.join(',')}`);
    return items.map((item) => item * 10);
  };
  // Each released write may start the next: release until nothing has waited a few turns.
  const releaseAll = async () => {
    for (let idle = 0; idle < 3;) {
      const gate = gates.shift();
      if (gate === undefined) idle += 1;
      else {
        idle = 0;
        gate();
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { batches, write, releaseAll };
}

describe('batcher', () => {
  it('writes a lone call at once, alone', async () => {
    const { batches, write, releaseAll } = recordingWrite();
    const add = batcher(write, 10);
    const result = add(1);
    expect(batches).toEqual([[1]]);
    await releaseAll();
    await expect(result).resolves.toBe(10);
  });

  it('gathers the calls made during a write into the next one, each answered with its own result', async () => {
    const { batches, write, releaseAll } = recordingWrite();
    const add = batcher(write, 10);
    const results = [1, 2, 3, 4].map((item) => add(item));
    await releaseAll();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    await expect(Promise.all(results)).resolves.toEqual([10, 20, 30, 40]);
  });

  it('never writes more than maxBatch items at once, and keeps arrival order', async () => {
    const { batches, write, releaseAll } = recordingWrite();
    const add = batcher(write, 2);
    const results = [1, 2, 3, 4, 5, 6].map((item) => add(item));
    await releaseAll();
    expect(batches).toEqual([[1], [2, 3], [4, 5], [6]]);
    await expect(Promise.all(results)).resolves.toEqual([10, 20, 30, 40, 50, 60]);
  });

  it('fails only the bad item of a failed batch: the others are written again alone', async () => {
    const { batches, write, releaseAll } = recordingWrite((item) => item === 3);
    const add = batcher(write, 10);
    const results = [1, 2, 3, 4].map((item) => add(item).catch((error: Error) => error.message));
    await releaseAll();
    expect(batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
    await expect(Promise.all(results)).resolves.toEqual([10, 20, 'refused 3', 40]);
  });

  it('refuses a write that answers the wrong number of results', async () => {
    const add = batcher(() => Promise.resolve([1]), 10);
    const first = add(1);
    const [second, third] = [add(2), add(3)];
    await expect(first).resolves.toBe(1);
    // The pair got one result: written again alone, each then answers its one.
    await expect(Promise.all([second, third])).resolves.toEqual([1, 1]);
    const short = batcher(() => Promise.resolve([]), 10);
    await expect(short(1)).rejects.toThrow('batch write answered 0 results for 1');
  });

  it('with gatherMs, waits that long for company: calls within the window share one write', async () => {
    const batches: number[][] = [];
    const add = batcher(
      (items: readonly number[]) => {
        batches.push([...items]);
        return Promise.resolve(items.map((item) => item * 10));
      },
      10,
      30,
    );
    const first = add(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = add(2);
    await expect(Promise.all([first, second])).resolves.toEqual([10, 20]);
    expect(batches).toEqual([[1, 2]]);
  });
});
