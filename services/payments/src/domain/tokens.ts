import { createHash, randomBytes } from 'node:crypto';

/** A checkout token: 32 random bytes, shown once in the checkout link, stored hashed. */
export function newCheckoutToken(): { token: string; hash: Buffer } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
