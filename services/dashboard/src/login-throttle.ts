/**
 * Failed sign-ins allowed in a window before the next attempts are refused, counted so
 * that strangers cannot lock an account's owner out (OWASP's device cookies):
 *
 * - from a **known device** (one that signed in to this account before and kept its
 *   device cookie), only that device's own failures count;
 * - from anywhere else, the failures of the address (guessing across many accounts), of
 *   the account from this address (guessing one account), and of the account from every
 *   unknown place together (guessing one account from many addresses) each have a limit.
 *
 * So five wrong passwords from five addresses lock nothing; many from many addresses lock
 * the account to unknown places only, never to the owner's own device.
 */
export interface ThrottleLimits {
  /** Failures of one address, whatever the accounts tried. */
  perAddress: number;
  /** Failures of one account from one address. */
  perAccountAddress: number;
  /** Failures of one account from all unknown devices together. */
  perAccount: number;
  /** Failures from one known device of the account. */
  perDevice: number;
  windowSeconds: number;
}

export const LOGIN_LIMITS: ThrottleLimits = {
  perAddress: 20,
  perAccountAddress: 5,
  perAccount: 50,
  perDevice: 5,
  windowSeconds: 15 * 60,
};

/** A counter's failures in its window, and the seconds the window has left. */
export interface WindowCounts {
  count: number;
  ttlSeconds: number;
}

/** The counters that judge a sign-in: the device's when it is known, else the others. */
export type ThrottleCounts =
  | { knownDevice: true; device: WindowCounts }
  | {
      knownDevice: false;
      address: WindowCounts;
      accountAddress: WindowCounts;
      account: WindowCounts;
    };

export type ThrottleVerdict =
  { allowed: true } | { allowed: false; by: 'account' | 'address'; retryAfterSeconds: number };

/**
 * Whether a sign-in may be tried, given the failures counted so far. The address limit
 * is checked first: someone guessing across many accounts from one place is stopped
 * before an account locks.
 */
export function loginVerdict(
  counts: ThrottleCounts,
  limits: ThrottleLimits = LOGIN_LIMITS,
): ThrottleVerdict {
  const refused = (by: 'account' | 'address', window: WindowCounts): ThrottleVerdict => ({
    allowed: false,
    by,
    retryAfterSeconds: window.ttlSeconds > 0 ? Math.ceil(window.ttlSeconds) : limits.windowSeconds,
  });
  if (counts.knownDevice) {
    return counts.device.count >= limits.perDevice
      ? refused('account', counts.device)
      : { allowed: true };
  }
  if (counts.address.count >= limits.perAddress) return refused('address', counts.address);
  if (counts.accountAddress.count >= limits.perAccountAddress) {
    return refused('account', counts.accountAddress);
  }
  if (counts.account.count >= limits.perAccount) return refused('account', counts.account);
  return { allowed: true };
}

/** The account part of a counter's key: case and surrounding spaces do not make a new one. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
