import { createHash } from 'node:crypto';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';

/**
 * The campaign's randomness, all of it from the seed. Each actor and the fault plan draw
 * from a stream of their own (`fork(label)`), so what one actor chooses never depends on
 * how many draws another made before it: a seed replays the same schedule.
 */
export interface Rng {
  /** An integer in [from, to]. */
  int(from: number, to: number): number;
  /** A number in [0, 1). */
  float(): number;
  /** True with this probability. */
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight: `{ a: 3, b: 1 }` gives a three times out of four. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K;
  /** An independent stream named by `label`, the same for the same seed and label. */
  fork(label: string): Rng;
}

export function seededRng(seed: number, path = ''): Rng {
  const generator = xoroshiro128plusFromState(stateOf(`${seed}/${path}`));
  const rng: Rng = {
    int: (from, to) => uniformInt(generator, from, to),
    float: () => uniformFloat64(generator),
    chance: (probability) => uniformFloat64(generator) < probability,
    pick(items) {
      if (items.length === 0) throw new Error('nothing to pick from');
      return items[uniformInt(generator, 0, items.length - 1)]!;
    },
    weighted(weights) {
      const entries = Object.entries(weights) as [keyof typeof weights, number][];
      let left = uniformFloat64(generator) * entries.reduce((sum, [, w]) => sum + w, 0);
      for (const [key, weight] of entries) {
        left -= weight;
        if (left < 0) return key;
      }
      return entries.at(-1)![0];
    },
    fork: (label) => seededRng(seed, `${path}/${label}`),
  };
  return rng;
}

/**
 * The generator's 128-bit state from a hash of the seed and the stream's name: the
 * generator's own seeding keeps neighbouring seeds alike for many draws.
 */
function stateOf(name: string): number[] {
  const digest = createHash('sha256').update(name).digest();
  return [0, 4, 8, 12].map((offset) => digest.readInt32LE(offset));
}
