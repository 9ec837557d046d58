/**
 * Values read recently, by key, so a hot read costs no round trip while nothing changes.
 * Exact, not eventually right, when every change reaches `forget` (or `clear`): a read
 * that started before a change must not store what it read, as it may already be the
 * old value, so each forget bumps a generation and a read stores its answer only when
 * the generation did not move while it ran. `ttlMs` only bounds how long a change that
 * never reached `forget` (a lost notification) could matter; 0 turns the cache off.
 * `keep` says which values may be stored (an unknown key must not fill memory).
 */
export function readThroughCache<V>(options: {
  ttlMs: number;
  maxEntries: number;
  keep?: (value: V) => boolean;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: V; expiresAt: number }>();
  let generation = 0;

  return {
    async get(key: string, read: () => Promise<V>): Promise<V> {
      if (options.ttlMs === 0) return read();
      const hit = entries.get(key);
      if (hit && hit.expiresAt > now()) return hit.value;
      if (hit) entries.delete(key);

      const startedAt = generation;
      const value = await read();
      if (startedAt === generation && (options.keep?.(value) ?? true)) {
        // The oldest entry goes first (a Map keeps insertion order).
        if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, { value, expiresAt: now() + options.ttlMs });
      }
      return value;
    },
    forget(key: string): void {
      generation++;
      entries.delete(key);
    },
    clear(): void {
      generation++;
      entries.clear();
    },
    size: () => entries.size,
  };
}

export type ReadThroughCache<V> = ReturnType<typeof readThroughCache<V>>;
