import { createHash, randomBytes } from 'node:crypto';

// The rules of a password reset link, pure: what a token looks like, what is stored of
// it (its SHA-256 only), how long it lasts, and whether a stored link may still be used.

/** 32 random bytes, base64url: 256 bits nobody guesses. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** How long a link works unless DASHBOARD_PASSWORD_RESET_MINUTES says otherwise. */
export const DEFAULT_RESET_MINUTES = 30;

/** A new link: the token (for the email only) and what is stored of it. */
export interface IssuedResetToken {
  token: string;
  hash: Buffer;
  createdAt: Date;
  expiresAt: Date;
}

export function isResetToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN.test(value);
}

/** What the database keeps of a token: its SHA-256, never the token. */
export function resetTokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function issueResetToken(
  now: Date,
  minutes: number = DEFAULT_RESET_MINUTES,
): IssuedResetToken {
  const token = randomBytes(32).toString('base64url');
  return {
    token,
    hash: resetTokenHash(token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + minutes * 60_000),
  };
}

/** Where a link stands: only 'usable' shows the form to choose a password. */
export type ResetLinkState = 'usable' | 'expired' | 'used' | 'unknown';

/**
 * A stored link's state at `now`. Used wins over expired (it can never come back), and a
 * link of a disabled user or inactive merchant is as good as unknown: the page says the
 * same as for a link that never existed.
 */
export function resetLinkState(
  link: { expiresAt: Date; usedAt: Date | null; usable: boolean } | null,
  now: Date,
): ResetLinkState {
  if (!link || !link.usable) return 'unknown';
  if (link.usedAt) return 'used';
  if (link.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'usable';
}
