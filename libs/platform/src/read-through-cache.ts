/** A change `forget` was told of: which part of the value changed, to which revision. */
export interface HeardChange {
  part: string;
  revision: number;
}

/**
 * Values read recently, by key, so a hot read costs no round trip while nothing changes.
 * Exact, not eventually right, when every change reaches `forget` (or `clear`):
 *
 * - A read that started before a change must not store what it read, as it may already
 *   be the old value, so each forget bumps a generation and a read stores its answer
 *   only when the generation did not move while it ran.
 * - A read that started after a change may still answer the old value, when it is
 *   answered by someone who has not heard of the change yet (another replica's memory).
 *   When `forget` is told which part changed to which revision, and `revisionsOf` says
 *   which revision of each part a value reflects, no value older than a change heard for
 *   its key is stored. What was heard is kept as long as an entry could live (`ttlMs`),
 *   at most `maxEntries` keys, the oldest dropped first.
 *
 * `ttlMs` only bounds how long a change that never reached `forget` (a lost notification)
 * could matter; 0 turns the cache off. `keep` says which values may be stored (an unknown
 * key must not fill memory).
 */
export function readThroughCache<V>(options: {
  ttlMs: number;
  maxEntries: number;
  keep?: (value: V) => boolean;
  /** The revision of each part of a value; a part it lacks is at revision 0. */
  revisionsOf?: (value: V) => Readonly<Record<string, number>>;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: V; expiresAt: number }>();
  const heard = new Map<string, { revisions: Map<string, number>; expiresAt: number }>();
  let generation = 0;

  /** Whether `value` is at least as new as every change heard for `key`. */
  function isCurrent(key: string, value: V): boolean {
    const changes = heard.get(key);
    if (!changes || !options.revisionsOf) return true;
    if (changes.expiresAt <= now()) {
      heard.delete(key);
      return true;
    }
    const revisions = options.revisionsOf(value);
    for (const [part, revision] of changes.revisions) {
      if ((Object.hasOwn(revisions, part) ? revisions[part]! : 0) < revision) return false;
    }
    return true;
  }

  function hear(key: string, change: HeardChange): void {
    const known = heard.get(key);
    const revisions =
      known && known.expiresAt > now() ? known.revisions : new Map<string, number>();
    revisions.set(change.part, Math.max(revisions.get(change.part) ?? 0, change.revision));
    // Moved to the end: the Map's order is the order of the last change heard.
    heard.delete(key);
    if (heard.size >= options.maxEntries) heard.delete(heard.keys().next().value!);
    heard.set(key, { revisions, expiresAt: now() + options.ttlMs });
  }

  return {
    async get(key: string, read: () => Promise<V>): Promise<V> {
      if (options.ttlMs === 0) return read();
      const hit = entries.get(key);
      if (hit && hit.expiresAt > now()) return hit.value;
      if (hit) entries.delete(key);

      const startedAt = generation;
      const value = await read();
      if (startedAt === generation && (options.keep?.(value) ?? true) && isCurrent(key, value)) {
        // The oldest entry goes first (a Map keeps insertion order).
        if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, { value, expiresAt: now() + options.ttlMs });
      }
      return value;
    },
    /** The value of `key` changed; `change` says which part, to which revision, if known. */
    forget(key: string, change?: HeardChange): void {
      generation++;
      entries.delete(key);
      if (change && options.ttlMs > 0) hear(key, change);
    },
    /** Everything may have changed. What was heard stays true, so it stays. */
    clear(): void {
      generation++;
      entries.clear();
    },
    size: () => entries.size,
  };
}
