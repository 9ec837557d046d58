import type { RateLimitPluginOptions } from '@fastify/rate-limit';
import type { Redis } from '@dzpay/platform';
import type { FastifyBaseLogger } from 'fastify';
import { memoryWindows, type MemoryWindows } from './rate-limit-memory.ts';

type StoreCtor = NonNullable<RateLimitPluginOptions['store']>;
type Store = InstanceType<StoreCtor>;
type Done = Parameters<Store['incr']>[1];

export interface DegradableStoreOptions {
  redis: Redis;
  /** Gateway replicas sharing the limits: without Redis, each counts its share. */
  replicas: number;
  /** Before every key (after the client's own prefix). */
  nameSpace: string;
  logger: FastifyBaseLogger;
  /** Keys each route's memory fallback keeps at most. */
  maxMemoryKeys?: number;
}

// The fixed window @fastify/rate-limit's own Redis store counts: the first request of
// a window starts its expiry, every replica increments the same key.
const WINDOW_LUA = `
local current = redis.call('INCR', KEYS[1])
local ttl = tonumber(ARGV[1])
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ttl)
else
  ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    ttl = tonumber(ARGV[1])
  end
end
return {current, ttl}
`;

type WithWindow = Redis & {
  dzpayRateWindow(key: string, windowMs: number): Promise<[number, number]>;
};

/**
 * A store for @fastify/rate-limit that counts in Redis, shared by every gateway replica,
 * while Redis answers, and in this process's memory when it does not: then each
 * replica allows its share of the limit (limit ÷ replicas, rounded up), so the limit
 * degrades to about itself across the fleet instead of vanishing. The client fails at
 * once while the connection is down (connectRedis), so no request waits for Redis.
 * Counts are not carried across a switch: a key may get its memory share and then a
 * full Redis window in the same minute, never more.
 */
export function degradableStore(options: DegradableStoreOptions): StoreCtor {
  const redis = options.redis as WithWindow;
  if (typeof redis.dzpayRateWindow !== 'function') {
    redis.defineCommand('dzpayRateWindow', { numberOfKeys: 1, lua: WINDOW_LUA });
  }
  let inMemory = false;
  const switchTo = (memory: boolean, err?: unknown) => {
    if (memory === inMemory) return;
    inMemory = memory;
    if (memory) {
      options.logger.warn(
        { err, replicas: options.replicas },
        'rate limits counted in memory, each replica its share, until Redis answers',
      );
    } else {
      options.logger.info('rate limits counted in Redis again');
    }
  };

  function store(prefix: string): Store {
    const memory: MemoryWindows = memoryWindows(options.maxMemoryKeys ?? 10_000);
    const fromMemory = (key: string, done: Done, windowMs: number, max: number) => {
      const share = Math.ceil(max / options.replicas);
      const count = memory.hit(key, windowMs);
      // The plugin compares against the whole limit and subtracts for the remaining
      // header: shifted so that the share's last request is `max` and the remaining
      // count is this replica's.
      done(null, { current: count.current + (max - share), ttl: count.ttlMs });
    };
    return {
      incr(key, done, windowMs, max) {
        if (redis.status !== 'ready') {
          switchTo(true);
          fromMemory(key, done, windowMs, max);
          return;
        }
        redis.dzpayRateWindow(`${prefix}${key}`, windowMs).then(
          ([current, ttl]) => {
            switchTo(false);
            done(null, { current, ttl });
          },
          (err: unknown) => {
            switchTo(true, err);
            fromMemory(key, done, windowMs, max);
          },
        );
      },
      child(routeOptions) {
        // The plugin passes its merged route settings, with the route under routeInfo.
        const route = (routeOptions as { routeInfo?: { method?: unknown; url?: unknown } })
          .routeInfo;
        return store(`${prefix}${String(route?.method)}${String(route?.url)}-`);
      },
    };
  }

  return class DegradableStore {
    constructor() {
      return store(options.nameSpace);
    }
  } as unknown as StoreCtor;
}
