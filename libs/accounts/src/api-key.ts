import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Mode } from '@dzpay/contracts';

const PREFIX: Record<Mode, string> = { test: 'pk_test_', live: 'pk_live_' };
const KEY_PATTERN = /^pk_(test|live)_[A-Za-z0-9_-]{43}$/;

export interface IssuedKey {
  /** The key itself: shown once to the merchant, never stored. */
  key: string;
  /** SHA-256 of the key: what is stored and looked up. */
  hash: Buffer;
  /** The first characters, stored so people can tell keys apart. */
  displayPrefix: string;
  mode: Mode;
}

/** A new key: the mode's prefix and 32 random bytes in base64url. */
export function issueApiKey(mode: Mode, random: (size: number) => Buffer = randomBytes): IssuedKey {
  const key = `${PREFIX[mode]}${random(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), displayPrefix: `${key.slice(0, 12)}…`, mode };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** The mode a well-formed key claims, or null for anything that cannot be a key. */
export function modeOfApiKey(key: string): Mode | null {
  const match = KEY_PATTERN.exec(key);
  return match ? (match[1] as Mode) : null;
}

/** Compares two hashes without leaking, through timing, how much of them matched. */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
