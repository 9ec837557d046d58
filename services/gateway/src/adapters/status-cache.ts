import {
  statusAsOf,
  statusKey,
  statusRecordOf,
  type StatusChange,
  type StatusRecord,
  type StatusReply,
  type StatusSubject,
} from '@dzpay/contracts';
import { readThroughCache } from '@dzpay/platform';

/** Where the status route gets a reference's record: from status over NATS, or memory. */
export interface StatusLookup {
  statusOf(subject: StatusSubject, ask: () => Promise<StatusReply>): Promise<StatusRecord>;
}

/**
 * The status records of references asked about recently, so a hot reference is answered
 * without the NATS hop to status (and status's own memory or Postgres behind it). Every
 * gateway forgets a reference as soon as Postgres notifies the commit that changed its
 * attempts (libs/platform `onStatusChanges`, wired in service.ts): a record is as fresh
 * as status's own answer, give or take that notification's way here, well under a
 * millisecond after the commit. The notification names the attempt's revision it
 * reached, and status says which revisions its answer reflects: an answer older than a
 * change heard here (a status replica that has not heard of it yet answered from its
 * memory) is passed on but never remembered. The lock's end is checked against the
 * clock on every answer (statusAsOf). `not_found` is never remembered: guessed
 * references must not fill memory, and the first event of a reference must not wait on
 * a notification.
 */
export function statusCache(options: { ttlMs: number; maxEntries: number; now?: () => number }) {
  const now = options.now ?? Date.now;
  const cache = readThroughCache<StatusReply>({
    ...options,
    keep: (reply) => reply.stage !== 'not_found',
    revisionsOf: (reply) => reply.revisions ?? {},
  });
  return {
    async statusOf(subject: StatusSubject, ask: () => Promise<StatusReply>): Promise<StatusRecord> {
      return statusAsOf(statusRecordOf(await cache.get(statusKey(subject), ask)), new Date(now()));
    },
    forget: ({ attempt, ...subject }: StatusChange): void =>
      cache.forget(
        statusKey(subject),
        attempt && { part: attempt.paymentId, revision: attempt.revision },
      ),
    clear: (): void => cache.clear(),
    size: () => cache.size(),
  };
}
