// When a NATS request that has no answer yet is asked again. Pure: the caller passes the
// clock's readings, so tests decide the time.

/** Why a try got no answer. */
export type TransportFailure = 'timeout' | 'no-responders' | 'connection';

export interface RetryPolicy {
  /** At most this many tries in all, the first included. */
  readonly maxTries: number;
  /** How long the newest try is waited for before another is sent beside it. */
  readonly patienceMs: number;
  /**
   * The pause before asking again after no-responders, the n-th entry after the n-th
   * try, the last one repeated: another replica may be (re)subscribing.
   */
  readonly noRespondersPausesMs: readonly number[];
  /** A try that would have less time than this before the deadline is not sent. */
  readonly minTryMs: number;
}

/**
 * For reads and idempotent calls: the replica that took a try may have died with it, so
 * after a second without an answer the question is sent again, and the queue group
 * gives it to a replica still alive. The earlier tries keep waiting until the deadline
 * (a replica that is only slow still answers, and its answer is taken), so a slow
 * service fails no sooner than before; four tries bound the extra load it gets.
 */
export const IDEMPOTENT_RETRY: RetryPolicy = {
  maxTries: 4,
  patienceMs: 1_000,
  noRespondersPausesMs: [100, 250],
  minTryMs: 100,
};

/** A call that must not run twice: one try, the whole timeout. */
export const SINGLE_TRY: RetryPolicy = {
  maxTries: 1,
  patienceMs: Number.POSITIVE_INFINITY,
  noRespondersPausesMs: [],
  minTryMs: 0,
};

/** Whether another try may be sent at `now`, `tries` having been sent. */
export function mayTryAgain(policy: RetryPolicy, tries: number, now: number, deadline: number) {
  return tries < policy.maxTries && deadline - now >= Math.max(1, policy.minTryMs);
}

/** How long to wait for the newest try before sending another beside it. */
export function patienceMs(policy: RetryPolicy, now: number, deadline: number): number {
  return Math.max(0, Math.min(policy.patienceMs, deadline - now));
}

/** The pause before the next try after the `tries`-th found no responder. */
export function pauseAfterNoResponders(policy: RetryPolicy, tries: number): number {
  const pauses = policy.noRespondersPausesMs;
  if (pauses.length === 0) return 0;
  return pauses[Math.min(tries, pauses.length) - 1] ?? 0;
}
