import type { Sql } from '@dzpay/platform';
import type { KeyOwner } from './accounts-repository.ts';

/** Where authentication looks up who owns a key hash. */
export interface KeyOwnerLookup {
  findKeyOwner(hash: Buffer): Promise<KeyOwner | null>;
}

const ACCOUNTS_CHANGED_CHANNEL = 'dzpay_accounts_changed';

/**
 * Remembers the owners of keys seen recently, so a request does not cost a database
 * round trip for its key. Every gateway forgets everything as soon as Postgres says an
 * account changed (see migration 002); the time limit only bounds how long a missed
 * notification could matter. Unknown keys are never remembered: guessing keys must not
 * fill memory.
 */
export function keyOwnerCache(
  source: KeyOwnerLookup,
  options: { ttlMs: number; maxEntries: number; now?: () => number },
) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { owner: KeyOwner; expiresAt: number }>();
  // Bumped on every invalidation: a lookup that started before one must not store
  // what it read, as it may already be stale.
  let generation = 0;

  return {
    async findKeyOwner(hash: Buffer): Promise<KeyOwner | null> {
      const id = hash.toString('base64');
      const hit = entries.get(id);
      if (hit && hit.expiresAt > now()) return hit.owner;
      entries.delete(id);

      const startedAt = generation;
      const owner = await source.findKeyOwner(hash);
      if (owner && startedAt === generation) {
        if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(id, { owner, expiresAt: now() + options.ttlMs });
      }
      return owner;
    },
    invalidate(): void {
      generation++;
      entries.clear();
    },
    size: () => entries.size,
  };
}

/**
 * Runs the handlers whenever an account changes (and on every (re)connection, since
 * notifications sent while disconnected are lost); resolves once listening.
 */
export async function onAccountChanges(sql: Sql, ...handlers: (() => unknown)[]): Promise<void> {
  const run = () => handlers.forEach((handler) => void handler());
  await sql.listen(ACCOUNTS_CHANGED_CHANNEL, run, run);
}
