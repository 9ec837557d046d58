/** Failed sign-ins allowed in a window before the next attempts are refused. */
export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
  windowSeconds: number;
}

export const LOGIN_LIMITS: ThrottleLimits = {
  perAccount: 5,
  perAddress: 20,
  windowSeconds: 15 * 60,
};

export type ThrottleVerdict =
  { allowed: true } | { allowed: false; by: 'account' | 'address'; retryAfterSeconds: number };

/**
 * Whether a sign-in may be tried, given the failures counted so far in each window
 * (and how long the window has left). The address limit is checked first: someone
 * guessing across many accounts from one place is stopped before an account locks.
 */
export function loginVerdict(
  counts: {
    account: number;
    address: number;
    accountTtlSeconds: number;
    addressTtlSeconds: number;
  },
  limits: ThrottleLimits = LOGIN_LIMITS,
): ThrottleVerdict {
  const retry = (ttl: number) => (ttl > 0 ? Math.ceil(ttl) : limits.windowSeconds);
  if (counts.address >= limits.perAddress) {
    return { allowed: false, by: 'address', retryAfterSeconds: retry(counts.addressTtlSeconds) };
  }
  if (counts.account >= limits.perAccount) {
    return { allowed: false, by: 'account', retryAfterSeconds: retry(counts.accountTtlSeconds) };
  }
  return { allowed: true };
}

/** The account part of a counter's key: case and surrounding spaces do not make a new one. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
