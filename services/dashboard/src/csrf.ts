import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh token: 32 random bytes, base64url. One per session (and per sign-in form). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Whether a submitted token is the expected one, in time that does not depend on how
 * much of it matched: both sides are hashed first so their lengths never differ.
 */
export function sameToken(expected: string, submitted: unknown): boolean {
  if (typeof submitted !== 'string' || submitted.length === 0 || expected.length === 0) {
    return false;
  }
  const a = createHash('sha256').update(expected, 'utf8').digest();
  const b = createHash('sha256').update(submitted, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * Whether the browser says a request comes from a page of another site or of a sibling
 * subdomain (Fetch Metadata, `Sec-Fetch-Site`). The forms before a session refuse those:
 * a token, even one the server issued to someone, posted from elsewhere is a login CSRF.
 * Clients that send no such header (older browsers, scripts) are left to the token.
 */
export function fromAnotherSite(secFetchSite: unknown): boolean {
  return secFetchSite === 'cross-site' || secFetchSite === 'same-site';
}
