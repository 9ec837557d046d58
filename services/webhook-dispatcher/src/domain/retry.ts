/** What one attempt came to, as far as the schedule is concerned. */
export type AttemptVerdict =
  | { kind: 'delivered' }
  /** Retry on the schedule; `retryAfterMs` is the partner's Retry-After, if any. */
  | { kind: 'retry'; retryAfterMs: number | null }
  /** No retry whatever the schedule says: 410 Gone, a refused target. */
  | { kind: 'stop' };

export type NextStep =
  { state: 'success' } | { state: 'fail' } | { state: 'pending'; nextAttemptAt: Date };

/** The longest wait a partner's Retry-After can ask for: a day. */
const RETRY_AFTER_CAP_MS = 86_400_000;

/** Jitter applied to each scheduled delay: ±10 %. */
const JITTER = 0.1;

/**
 * Where a delivery goes after its attempt number `attempts` (1-based) ended with
 * `verdict`. `schedule[i]` is the delay before attempt i + 1, so after attempt n the
 * next one waits `schedule[n]`, jittered, or longer when the partner asked with
 * Retry-After (at most a day); past the schedule's end the delivery is `fail`. Pure: clock and
 * randomness come in (`random` in [0, 1)).
 */
export function nextStep(input: {
  verdict: AttemptVerdict;
  attempts: number;
  schedule: readonly number[];
  now: Date;
  random: () => number;
}): NextStep {
  const { verdict, attempts, schedule, now } = input;
  if (verdict.kind === 'delivered') return { state: 'success' };
  if (verdict.kind === 'stop') return { state: 'fail' };
  const delay = schedule[attempts];
  if (delay === undefined) return { state: 'fail' };
  const jittered = Math.round(delay * (1 + (input.random() * 2 - 1) * JITTER));
  // Capped, so a partner cannot park a delivery for weeks with one header.
  const asked = Math.min(verdict.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS);
  const wait = Math.max(jittered, asked);
  return { state: 'pending', nextAttemptAt: new Date(now.getTime() + wait) };
}

/**
 * A Retry-After header in ms from `now`: delay-seconds or an HTTP date; null when absent
 * or unreadable. A date in the past means no wait.
 */
export function retryAfterMs(header: string | undefined, now: Date): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date) || !/[a-z]/i.test(value)) return null;
  return Math.max(0, date - now.getTime());
}
