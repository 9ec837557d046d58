import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

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

export function seededRng(seed: number): Rng {
  const generator = xoroshiro128plus(seed);
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
    fork: (label) => seededRng(mix(seed, label)),
  };
  return rng;
}

/** A 32-bit seed from the parent seed and a label (FNV-1a over both). */
function mix(seed: number, label: string): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (const char of `${seed}:${label}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}
