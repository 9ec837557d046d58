import { Redis } from 'ioredis';

export type { Redis };

/**
 * A client whose every key carries the deployment's prefix. Redis holds only what can
 * be rebuilt (rate-limit counters, lock fast paths), so losing it never loses money.
 */
export function connectRedis(url: string, keyPrefix: string): Redis {
  return new Redis(url, { keyPrefix, maxRetriesPerRequest: 2, enableAutoPipelining: true });
}
