import { createHash } from 'node:crypto';
import type { Redis } from '@dzpay/platform';
import { newToken, sameToken } from '../csrf.ts';

// Under the client's deployment prefix, like the sessions. Stored under the SHA-256 of
// the cookie's nonce, so a Redis dump holds no cookie, and the token it holds is useless
// without that cookie.
const FORM_TOKEN = 'dashboard:form-token:';
const NONCE = /^[A-Za-z0-9_-]{43}$/;

/** How long a sign-in or invitation form stays good without being shown again. */
export const FORM_TOKEN_SECONDS = 3600;

/** A cookie's nonce and the token its forms carry. */
export interface IssuedFormToken {
  nonce: string;
  token: string;
}

function keyOf(nonce: string): string {
  return FORM_TOKEN + createHash('sha256').update(nonce, 'utf8').digest('base64url');
}

/**
 * The CSRF tokens of the forms shown before a session exists, issued by the server: a
 * random nonce for the cookie and a random token for the form, bound in Redis. A pair
 * the server did not issue, say an equal cookie and field planted by someone who can set
 * cookies for the host, finds nothing here. In Redis, not signed with a key, so every
 * replica verifies what another issued without a shared secret (sign-in needs Redis for
 * its throttle anyway). Every call may throw when Redis is down.
 */
export function formTokens(redis: Redis, ttlSeconds = FORM_TOKEN_SECONDS) {
  return {
    ttlSeconds,

    async issue(): Promise<IssuedFormToken> {
      const issued = { nonce: newToken(), token: newToken() };
      await redis.set(keyOf(issued.nonce), issued.token, 'EX', ttlSeconds);
      return issued;
    },

    /** The token bound to a cookie's nonce, its expiry started again; null when none. */
    async current(nonce: string): Promise<string | null> {
      if (!NONCE.test(nonce)) return null;
      return redis.getex(keyOf(nonce), 'EX', ttlSeconds);
    },

    /** Whether the form's token is the one issued with this cookie's nonce. */
    async verify(nonce: string | undefined, submitted: unknown): Promise<boolean> {
      if (!nonce || !NONCE.test(nonce)) return false;
      const token = await redis.get(keyOf(nonce));
      return token !== null && sameToken(token, submitted);
    },

    /** Ends a token once its form did its work: the pair never serves twice. */
    async consume(nonce: string): Promise<void> {
      if (NONCE.test(nonce)) await redis.del(keyOf(nonce));
    },
  };
}

export type FormTokens = ReturnType<typeof formTokens>;
