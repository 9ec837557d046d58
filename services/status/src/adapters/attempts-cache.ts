import type { MerchantScope } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import type { Attempt } from '../domain/stage.ts';

/** A product reference whose attempts changed (the status answer is per reference). */
export interface ChangedReference extends MerchantScope {
  reference: string;
}

export type AttemptsSource = (scope: MerchantScope, reference: string) => Promise<Attempt[]>;

export type AttemptsCache = ReturnType<typeof attemptsCache>;

/** Migration 005's channel: every change to a product attempt, at commit. */
const STATUS_CHANGED_CHANNEL = 'dzpay_status_changed';

/** One reference of one merchant and mode; JSON, so no reference can forge another's key. */
function referenceKey(changed: ChangedReference): string {
  return JSON.stringify([changed.merchantId, changed.mode, changed.reference]);
}

/**
 * The attempts of references asked about recently, so a status query costs no database
 * round trip while nothing changes. Exact, not eventually right: a change is forgotten
 * here before the projection acknowledges its event when this replica applied it
 * (`forget`), and on every other replica as soon as Postgres's notification of the
 * commit arrives (`onAttemptChanges`); everything is forgotten when the notification
 * connection is (re)made, since notifications sent meanwhile are lost. A read that
 * started before any change must not store what it read, as it may already be stale
 * (the generation). The time limit only bounds how long a lost notification could
 * matter. `ttlMs` 0 turns the cache off.
 */
export function attemptsCache(
  source: AttemptsSource,
  options: { ttlMs: number; maxEntries: number; now?: () => number },
) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { attempts: Attempt[]; expiresAt: number }>();
  let generation = 0;

  return {
    async attemptsOf(scope: MerchantScope, reference: string): Promise<Attempt[]> {
      if (options.ttlMs === 0) return source(scope, reference);
      const key = referenceKey({ ...scope, reference });
      const hit = entries.get(key);
      if (hit && hit.expiresAt > now()) return hit.attempts;
      if (hit) entries.delete(key);

      const startedAt = generation;
      const attempts = await source(scope, reference);
      if (startedAt === generation) {
        // The oldest entry goes first (a Map keeps insertion order).
        if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, { attempts, expiresAt: now() + options.ttlMs });
      }
      return attempts;
    },
    forget(changed: ChangedReference): void {
      generation++;
      entries.delete(referenceKey(changed));
    },
    clear(): void {
      generation++;
      entries.clear();
    },
    size: () => entries.size,
  };
}

/**
 * Forgets each reference another replica (or this one) changed, as Postgres notifies
 * its commit; clears everything on each (re)connection. Resolves once listening.
 */
export async function onAttemptChanges(sql: Sql, cache: AttemptsCache): Promise<void> {
  await sql.listen(
    STATUS_CHANGED_CHANNEL,
    (payload) => {
      try {
        const [merchantId, mode, reference] = JSON.parse(payload) as [string, 'test', string];
        cache.forget({ merchantId, mode, reference });
      } catch {
        cache.clear(); // unreadable: forgetting everything is always exact
      }
    },
    () => cache.clear(),
  );
}
