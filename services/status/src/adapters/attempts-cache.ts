import { statusKey, type MerchantScope, type StatusSubject } from '@dzpay/contracts';
import { readThroughCache } from '@dzpay/platform';
import type { Attempt } from '../domain/stage.ts';

/** A product reference whose attempts changed (the status answer is per reference). */
export type ChangedReference = StatusSubject;

export type AttemptsSource = (scope: MerchantScope, reference: string) => Promise<Attempt[]>;

export type AttemptsCache = ReturnType<typeof attemptsCache>;

/**
 * The attempts of references asked about recently, so a status query costs no database
 * round trip while nothing changes (libs/platform read-through cache). A change is
 * forgotten here before the projection acknowledges its event when this replica applied
 * it (`forget`), and on every replica as soon as Postgres's notification of the commit
 * arrives (libs/platform `onStatusChanges`). `ttlMs` 0 turns it off.
 */
export function attemptsCache(
  source: AttemptsSource,
  options: { ttlMs: number; maxEntries: number; now?: () => number },
) {
  const cache = readThroughCache<Attempt[]>(options);
  return {
    attemptsOf: (scope: MerchantScope, reference: string): Promise<Attempt[]> =>
      cache.get(statusKey({ ...scope, reference }), () => source(scope, reference)),
    forget: (changed: ChangedReference): void => cache.forget(statusKey(changed)),
    clear: (): void => cache.clear(),
    size: () => cache.size(),
  };
}
