/** Reset links asked in a window before the next asks are refused. */
export interface ResetAskLimits {
  /** Per email, whether it has an account or not (counting only real ones would tell). */
  perEmail: number;
  /** Per client address, across every email asked from it. */
  perAddress: number;
  windowSeconds: number;
}

/**
 * Three links an hour is plenty for someone waiting for a slow email; more from one
 * email is someone filling an inbox. Ten from one address is an office having a bad
 * morning; more is someone probing emails.
 */
export const RESET_ASK_LIMITS: ResetAskLimits = {
  perEmail: 3,
  perAddress: 10,
  windowSeconds: 3600,
};

export type ResetAskVerdict =
  { allowed: true } | { allowed: false; by: 'email' | 'address'; retryAfterSeconds: number };

/**
 * Whether an ask may go on, given the asks counted in each window, this one included,
 * and the seconds each window has left. The address is checked first: someone asking
 * for many emails from one place is stopped whatever the emails.
 */
export function resetAskVerdict(
  counts: { email: number; address: number; emailTtlSeconds: number; addressTtlSeconds: number },
  limits: ResetAskLimits = RESET_ASK_LIMITS,
): ResetAskVerdict {
  const retry = (ttl: number) => (ttl > 0 ? Math.ceil(ttl) : limits.windowSeconds);
  if (counts.address > limits.perAddress) {
    return { allowed: false, by: 'address', retryAfterSeconds: retry(counts.addressTtlSeconds) };
  }
  if (counts.email > limits.perEmail) {
    return { allowed: false, by: 'email', retryAfterSeconds: retry(counts.emailTtlSeconds) };
  }
  return { allowed: true };
}

/** Whole minutes to wait, at least one: what the refusal page says. */
export function minutesToWait(retryAfterSeconds: number): number {
  return Math.max(1, Math.ceil(retryAfterSeconds / 60));
}
