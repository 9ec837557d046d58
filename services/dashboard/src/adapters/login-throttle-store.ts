import type { Redis } from '@dzpay/platform';
import {
  LOGIN_LIMITS,
  loginVerdict,
  type ThrottleLimits,
  type ThrottleVerdict,
} from '../login-throttle.ts';
import { emailKey, fixedWindowCounter } from './fixed-window-counter.ts';

// Failed sign-ins per account (the email hashed, so no address is stored in Redis) and
// per client address, each in a fixed window started by the first failure. Under the client's deployment prefix, like the API's `rate:` counters.
const ACCOUNT = 'dashboard:login-fail:account:';
const ADDRESS = 'dashboard:login-fail:address:';

/**
 * The sign-in throttle. Every call may throw when Redis is down: the sign-in page then
 * refuses (503) rather than allow unlimited guesses.
 */
export function loginThrottle(redis: Redis, limits: ThrottleLimits = LOGIN_LIMITS) {
  const counter = fixedWindowCounter(redis);
  const accountKey = (email: string) => emailKey(ACCOUNT, email);
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
        counter.count(accountKey(email), limits.windowSeconds),
        counter.count(ADDRESS + address, limits.windowSeconds),
      ]);
    },
    /** A successful sign-in clears the account's count (not the address's). */
    async recordSuccess(email: string): Promise<void> {
      await redis.del(accountKey(email));
    },
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
