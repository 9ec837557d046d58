import { createHash } from 'node:crypto';
import type { Redis } from '@dzpay/platform';
import { normalizeEmail } from '../login-throttle.ts';

// Counts one event and answers the count and the window's seconds left, in one round trip.
// The first event of a window (or a key left without expiry) starts the window.
const COUNT_LUA = `
local current = redis.call('INCR', KEYS[1])
if current == 1 or redis.call('TTL', KEYS[1]) < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return {current, redis.call('TTL', KEYS[1])}
`;

type WithCount = Redis & {
  dzpayFixedWindowCount(key: string, windowSeconds: number): Promise<[number, number]>;
};

/** A count in a fixed window and the seconds the window has left. */
export interface WindowCount {
  count: number;
  ttlSeconds: number;
}

/**
 * Fixed-window counters in Redis: each key counts its events in a window started by its
 * first one; later events do not lengthen it. Every call may throw when Redis is down.
 */
export function fixedWindowCounter(redis: Redis) {
  const counting = redis as WithCount;
  if (typeof counting.dzpayFixedWindowCount !== 'function') {
    redis.defineCommand('dzpayFixedWindowCount', { numberOfKeys: 1, lua: COUNT_LUA });
  }
  return {
    async count(key: string, windowSeconds: number): Promise<WindowCount> {
      const [count, ttlSeconds] = await counting.dzpayFixedWindowCount(key, windowSeconds);
      return { count, ttlSeconds };
    },
  };
}

/** A counter's key for an email: the SHA-256 of the lowercased email, so no address is stored. */
export function emailKey(prefix: string, email: string): string {
  return prefix + createHash('sha256').update(normalizeEmail(email), 'utf8').digest('base64url');
}
