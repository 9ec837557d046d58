import { statusAsOf, statusKey, type StatusRecord, type StatusSubject } from '@dzpay/contracts';
import { readThroughCache } from '@dzpay/platform';

/** Where the status route gets a reference's record: from status over NATS, or memory. */
export interface StatusLookup {
  statusOf(subject: StatusSubject, ask: () => Promise<StatusRecord>): Promise<StatusRecord>;
}

/**
 * The status records of references asked about recently, so a hot reference is answered
 * without the NATS hop to status (and status's own memory or Postgres behind it). Every
 * gateway forgets a reference as soon as Postgres notifies the commit that changed its
 * attempts (libs/platform `onStatusChanges`, wired in service.ts): a record is as fresh
 * as status's own answer, give or take that notification's way here, well under a
 * millisecond after the commit. The lock's end is checked against the clock on every
 * answer (statusAsOf). `not_found` is never remembered: guessed references must not
 * fill memory, and the first event of a reference must not wait on a notification.
 */
export function statusCache(options: { ttlMs: number; maxEntries: number; now?: () => number }) {
  const now = options.now ?? Date.now;
  const cache = readThroughCache<StatusRecord>({
    ...options,
    keep: (record) => record.stage !== 'not_found',
  });
  return {
    async statusOf(
      subject: StatusSubject,
      ask: () => Promise<StatusRecord>,
    ): Promise<StatusRecord> {
      return statusAsOf(await cache.get(statusKey(subject), ask), new Date(now()));
    },
    forget: (changed: StatusSubject): void => cache.forget(statusKey(changed)),
    clear: (): void => cache.clear(),
    size: () => cache.size(),
  };
}
