import type { Redis } from '@dzpay/platform';
import {
  RESET_ASK_LIMITS,
  resetAskVerdict,
  type ResetAskLimits,
  type ResetAskVerdict,
} from '../password-reset-throttle.ts';
import { emailKey, fixedWindowCounter } from './fixed-window-counter.ts';

// Reset asks per email (hashed: no address is stored in Redis) and per client address,
// each in a fixed window started by its first ask. Under the client's deployment prefix,
// like the sign-in throttle's keys.
const EMAIL = 'dashboard:reset-ask:email:';
const ADDRESS = 'dashboard:reset-ask:address:';

/**
 * The reset asks' throttle. Every ask counts, refused ones included (a fixed window: they
 * do not lengthen it). Every call may throw when Redis is down: the page then refuses
 * (503) rather than mail without limit.
 */
export function passwordResetThrottle(redis: Redis, limits: ResetAskLimits = RESET_ASK_LIMITS) {
  const counter = fixedWindowCounter(redis);
  return {
    limits,
    /** Counts this ask for the email and the address, and says whether it may go on. */
    async ask(email: string, address: string): Promise<ResetAskVerdict> {
      const [byEmail, byAddress] = await Promise.all([
        counter.count(emailKey(EMAIL, email), limits.windowSeconds),
        counter.count(ADDRESS + address, limits.windowSeconds),
      ]);
      return resetAskVerdict(
        {
          email: byEmail.count,
          address: byAddress.count,
          emailTtlSeconds: byEmail.ttlSeconds,
          addressTtlSeconds: byAddress.ttlSeconds,
        },
        limits,
      );
    },
  };
}

export type PasswordResetThrottle = ReturnType<typeof passwordResetThrottle>;
