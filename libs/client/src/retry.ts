/**
 * When the client sends a request again, the same rules as the PHP and Python SDKs: a
 * 429 always and a 503 or a lost connection only when repeating is safe, after dzpay's
 * Retry-After (else 0.5 s, 1 s, 2 s … with jitter), at most `maxRetries` times, and never
 * when dzpay asks to wait longer than `maxRetryDelaySeconds` (the caller sees the error,
 * with retryAfterSeconds, instead).
 */
export interface RetryPolicy {
  maxRetries: number;
  maxRetryDelaySeconds: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, maxRetryDelaySeconds: 60 };

/**
 * What came back from one try: a status with its Retry-After (and, for a 409, whether it
 * says the key's first request still runs), or no answer at all.
 */
export type TryOutcome =
  { status: number; retryAfter: string | null; inProgress?: boolean } | { lost: true };

/**
 * Seconds to wait before try `attempt + 1`, or null to stop here. `safe`: the request
 * may be repeated after dzpay could have acted on it (a read, a write with an
 * Idempotency-Key, or one idempotent by definition); a 429 was refused before any work.
 */
export function retryDelaySeconds(
  outcome: TryOutcome,
  attempt: number,
  safe: boolean,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | null {
  if (attempt >= policy.maxRetries) return null;
  if ('lost' in outcome) return safe ? backoffSeconds(attempt, random) : null;
  // A 409 whose key's first request still runs (a retry overtook it) is waited out like
  // a 503: the answer comes once that request ends. Any other 409 is final.
  const busy = outcome.status === 503 || (outcome.status === 409 && outcome.inProgress === true);
  if (outcome.status !== 429 && !(busy && safe)) return null;
  const asked = retryAfterSeconds(outcome.retryAfter);
  const delay = asked ?? backoffSeconds(attempt, random);
  return delay <= policy.maxRetryDelaySeconds ? delay : null;
}

/** 0.5 s, 1 s, 2 s … up to 8 s, plus up to a quarter of it at random. */
function backoffSeconds(attempt: number, random: () => number): number {
  const base = Math.min(0.5 * 2 ** attempt, 8);
  return base + random() * (base / 4);
}

/** Retry-After in seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(
  value: string | null,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  // An HTTP date names its day and month in letters; "-5" is no date, whatever Date.parse says.
  const at = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}
