import argon2 from 'argon2';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;

/** What is wrong with a chosen password, or null. Length only: long beats clever. */
export function passwordProblem(password: unknown): 'tooShort' | 'tooLong' | null {
  if (typeof password !== 'string' || [...password].length < PASSWORD_MIN) return 'tooShort';
  if ([...password].length > PASSWORD_MAX) return 'tooLong';
  return null;
}

/** argon2id with the library's defaults (19 MiB, 2 passes: OWASP's minimum or above). */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

let dummy: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. Without a user, it checks against a
 * throwaway hash, so an unknown email costs the same time as a wrong password and
 * timing does not tell which emails have accounts.
 */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  dummy ??= hashPassword('dzpay-dashboard-no-such-user');
  const against = hash ?? (await dummy);
  const ok = await argon2.verify(against, password.slice(0, PASSWORD_MAX * 4)).catch(() => false);
  return ok && hash !== null;
}

const EMAIL = /^[^\s@<>"']{1,64}@[^\s@<>"']{1,185}\.[^\s@<>"']{2,}$/;

/** A plausible email address (trimmed), or null. */
export function cleanEmail(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const email = value.trim();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}
