import type { KeyOwner } from '@dzpay/accounts';
import { readThroughCache, type Sql } from '@dzpay/platform';

/** Where authentication looks up who owns a key hash. */
export interface KeyOwnerLookup {
  findKeyOwner(hash: Buffer): Promise<KeyOwner | null>;
  /** Told of every key that authenticated a request ("last used"). */
  used?(keyId: string): void;
}

const ACCOUNTS_CHANGED_CHANNEL = 'dzpay_accounts_changed';

/**
 * Remembers the owners of keys seen recently, so a request does not cost a database
 * round trip for its key. Every gateway forgets everything as soon as Postgres says an
 * account changed (see migration 002), and a lookup under way when that happens is
 * answered but not remembered; the time limit only bounds how long a missed notification
 * could matter. Unknown keys are never remembered: guessing keys must not fill memory.
 */
export function keyOwnerCache(
  source: KeyOwnerLookup,
  options: { ttlMs: number; maxEntries: number; now?: () => number },
) {
  const cache = readThroughCache<KeyOwner | null>({ ...options, keep: (owner) => owner !== null });
  return {
    findKeyOwner: (hash: Buffer): Promise<KeyOwner | null> =>
      cache.get(hash.toString('base64'), () => source.findKeyOwner(hash)),
    invalidate: (): void => cache.clear(),
    size: (): number => cache.size(),
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
