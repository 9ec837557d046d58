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

const HELD_STAGES: ReadonlySet<StatusRecord['stage']> = new Set(['locked', 'paid']);

/** Whether the attempt that decided the answer is a row of status's projection. */
const fromProjection = (reply: StatusReply): boolean =>
  reply.paymentId !== null && Object.hasOwn(reply.revisions ?? {}, reply.paymentId);

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
 * clock on every answer (statusAsOf). Only `locked` and `paid` are remembered: a stage
 * that calls the reference free (`not_found`, `released`, `refunded`) is true only at
 * the moment status checked it against payments' rows (docs/status.md, "Free only when
 * payments agrees"), and no notification tells of an attempt opened while the stream
 * lags; so it is asked again every time. (`not_found` also must not fill memory with
 * guessed references.) Nor is a held stage status read from payments' rows rather than
 * its projection (the deciding attempt has no revision): no notification would take it
 * back when that attempt is paid. A remembered stage may be behind, never free too early.
 */
export function statusCache(options: { ttlMs: number; maxEntries: number; now?: () => number }) {
  const now = options.now ?? Date.now;
  const cache = readThroughCache<StatusReply>({
    ...options,
    keep: (reply) => HELD_STAGES.has(reply.stage) && fromProjection(reply),
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
