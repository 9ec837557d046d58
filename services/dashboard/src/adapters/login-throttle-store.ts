import { createHash } from 'node:crypto';
import type { Redis } from '@dzpay/platform';
import {
  LOGIN_LIMITS,
  loginVerdict,
  normalizeEmail,
  type ThrottleLimits,
  type ThrottleVerdict,
} from '../login-throttle.ts';

// Failed sign-ins per account (the SHA-256 of the lowercased email, so no address is
// stored in Redis) and per client address, each in a fixed window started by the first
// failure. Under the client's deployment prefix, like the API's `rate:` counters.
const ACCOUNT = 'dashboard:login-fail:account:';
const ADDRESS = 'dashboard:login-fail:address:';

const COUNT_LUA = `
local current = redis.call('INCR', KEYS[1])
if current == 1 or redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return current
`;

type WithCount = Redis & { dzpayLoginFailure(key: string, windowSeconds: number): Promise<number> };

function accountKey(email: string): string {
  return ACCOUNT + createHash('sha256').update(normalizeEmail(email), 'utf8').digest('base64url');
}

/**
 * The sign-in throttle. Every call may throw when Redis is down: the sign-in page then
 * refuses (503) rather than allow unlimited guesses.
 */
export function loginThrottle(redis: Redis, limits: ThrottleLimits = LOGIN_LIMITS) {
  const counting = redis as WithCount;
  if (typeof counting.dzpayLoginFailure !== 'function') {
    redis.defineCommand('dzpayLoginFailure', { numberOfKeys: 1, lua: COUNT_LUA });
  }
  return {
    limits,
    async check(email: string, address: string): Promise<ThrottleVerdict> {
      const account = accountKey(email);
      const [counts, ttls] = await Promise.all([
        redis.mget(account, ADDRESS + address),
        Promise.all([redis.ttl(account), redis.ttl(ADDRESS + address)]),
      ]);
      return loginVerdict(
        {
          account: Number(counts[0] ?? 0),
          address: Number(counts[1] ?? 0),
          accountTtlSeconds: ttls[0],
          addressTtlSeconds: ttls[1],
        },
        limits,
      );
    },
    async recordFailure(email: string, address: string): Promise<void> {
      await Promise.all([
        counting.dzpayLoginFailure(accountKey(email), limits.windowSeconds),
        counting.dzpayLoginFailure(ADDRESS + address, limits.windowSeconds),
      ]);
    },
    /** A successful sign-in clears the account's count (not the address's). */
    async recordSuccess(email: string): Promise<void> {
      await redis.del(accountKey(email));
    },
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
