import {
  statusKey,
  type AttemptRevisions,
  type MerchantScope,
  type StatusChange,
  type StatusSubject,
} from '@dzpay/contracts';
import { readThroughCache } from '@dzpay/platform';
import type { Attempt } from '../domain/stage.ts';

/** A product reference whose attempts changed (the status answer is per reference). */
export type ChangedReference = StatusSubject;

/**
 * An attempt as the projection holds it, with how many times its row was written
 * (`revision`; 0 for a state read from payments' rows that no row here reflects yet)
 * and the payment's version it reflects (null for events written before versions).
 */
export interface StoredAttempt extends Attempt {
  revision: number;
  paymentVersion: number | null;
}

export type AttemptsSource = (scope: MerchantScope, reference: string) => Promise<StoredAttempt[]>;

export type AttemptsCache = ReturnType<typeof attemptsCache>;

/**
 * The revision of each attempt read: what an answer computed from them reflects. A state
 * from payments' rows (revision 0) reflects no row here, so it is left out: an answer
 * with it is never taken for one that saw a change already notified.
 */
export function revisionsOf(attempts: readonly StoredAttempt[]): AttemptRevisions {
  return Object.fromEntries(
    attempts.filter((a) => a.revision > 0).map((attempt) => [attempt.paymentId, attempt.revision]),
  );
}

/**
 * The attempts of references asked about recently, so a status query costs no database
 * round trip while nothing changes (libs/platform read-through cache). A change is
 * forgotten here before the projection acknowledges its event when this replica applied
 * it (`forget`), and on every replica as soon as Postgres's notification of the commit
 * arrives (libs/platform `onStatusChanges`), which also names the attempt's revision: no
 * read older than it is stored after. `ttlMs` 0 turns it off.
 */
export function attemptsCache(
  source: AttemptsSource,
  options: { ttlMs: number; maxEntries: number; now?: () => number },
) {
  const cache = readThroughCache<StoredAttempt[]>({ ...options, revisionsOf });
  return {
    attemptsOf: (scope: MerchantScope, reference: string): Promise<StoredAttempt[]> =>
      cache.get(statusKey({ ...scope, reference }), () => source(scope, reference)),
    forget: ({ attempt, ...changed }: StatusChange): void =>
      cache.forget(
        statusKey(changed),
        attempt && { part: attempt.paymentId, revision: attempt.revision },
      ),
    clear: (): void => cache.clear(),
    size: () => cache.size(),
  };
}
