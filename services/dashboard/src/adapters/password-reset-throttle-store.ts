import { createHash } from 'node:crypto';
import type { Redis } from '@dzpay/platform';
import { normalizeEmail } from '../login-throttle.ts';
import {
  RESET_ASK_LIMITS,
  resetAskVerdict,
  type ResetAskLimits,
  type ResetAskVerdict,
} from '../password-reset-throttle.ts';

// Reset asks per email (the SHA-256 of the lowercased email: no address is stored in
// Redis) and per client address, each in a fixed window started by its first ask. Under
// the client's deployment prefix, like the sign-in throttle's keys.
const EMAIL = 'dashboard:reset-ask:email:';
const ADDRESS = 'dashboard:reset-ask:address:';

// Counts one ask and answers the count and the window's seconds left, in one round trip.
const COUNT_LUA = `
local current = redis.call('INCR', KEYS[1])
if current == 1 or redis.call('TTL', KEYS[1]) < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return {current, redis.call('TTL', KEYS[1])}
`;

type WithCount = Redis & {
  dzpayResetAsk(key: string, windowSeconds: number): Promise<[number, number]>;
};

function emailKey(email: string): string {
  return EMAIL + createHash('sha256').update(normalizeEmail(email), 'utf8').digest('base64url');
}

/**
 * The reset asks' throttle. Every ask counts, refused ones included (a fixed window: they
 * do not lengthen it). Every call may throw when Redis is down: the page then refuses
 * (503) rather than mail without limit.
 */
export function passwordResetThrottle(redis: Redis, limits: ResetAskLimits = RESET_ASK_LIMITS) {
  const counting = redis as WithCount;
  if (typeof counting.dzpayResetAsk !== 'function') {
    redis.defineCommand('dzpayResetAsk', { numberOfKeys: 1, lua: COUNT_LUA });
  }
  return {
    limits,
    /** Counts this ask for the email and the address, and says whether it may go on. */
    async ask(email: string, address: string): Promise<ResetAskVerdict> {
      const [[emailCount, emailTtl], [addressCount, addressTtl]] = await Promise.all([
        counting.dzpayResetAsk(emailKey(email), limits.windowSeconds),
        counting.dzpayResetAsk(ADDRESS + address, limits.windowSeconds),
      ]);
      return resetAskVerdict(
        {
          email: emailCount,
          address: addressCount,
          emailTtlSeconds: emailTtl,
          addressTtlSeconds: addressTtl,
        },
        limits,
      );
    },
  };
}

export type PasswordResetThrottle = ReturnType<typeof passwordResetThrottle>;
