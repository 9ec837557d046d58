import { Redis } from 'ioredis';

export type { Redis };

/** What connectRedis reports about the connection, if told where. */
interface RedisLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(message: string): void;
}

export interface RedisClientOptions {
  /** Longest a command may go unanswered on a live connection (a stalled server). */
  commandTimeoutMs?: number;
  /** Down and back again, once each way (not every failed reconnect). */
  log?: RedisLog;
}

/** Redis answers in well under a millisecond here; a command this slow is not coming. */
const COMMAND_TIMEOUT_MS = 500;
/** No byte for this long with commands in flight: the socket is dead (a partition). */
const SOCKET_TIMEOUT_MS = 1_000;
/** Reconnects never wait longer than this between tries, so Redis is back within a second. */
const MAX_RECONNECT_DELAY_MS = 1_000;

/**
 * A client whose every key carries the deployment's prefix. Redis holds only what can
 * be rebuilt (rate-limit counters, lock fast paths), so losing it never loses money,
 * and it must cost no time either: once the first connection attempt is over, a command
 * fails at once while the connection is down (no offline queue, no per-request
 * retries), and after COMMAND_TIMEOUT_MS on a connection that stopped answering; a
 * socket silent for SOCKET_TIMEOUT_MS with commands in flight is dropped, so later
 * commands fail at once too. The client reconnects in the background; callers fall
 * back (memory counts, Postgres) meanwhile.
 */
export function connectRedis(
  url: string,
  keyPrefix: string,
  options: RedisClientOptions = {},
): Redis {
  return failFast(
    new Redis(url, {
      keyPrefix,
      enableAutoPipelining: true,
      // Only until the first connection attempt is over: see failFast.
      enableOfflineQueue: true,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(times * 100, MAX_RECONNECT_DELAY_MS),
    }),
    options.log,
  );
}

/**
 * Commands sent while the client is still making its first connection wait for that
 * attempt (at most connectTimeout, a millisecond on a working network): a service's
 * first commands may come before it is over. From then on nothing is queued. QUIT
 * without a connection closes the socket instead of failing and leaving the client
 * reconnecting forever. A duplicate() behaves the same.
 */
function failFast(redis: Redis, log: RedisLog | undefined): Redis {
  watchConnection(redis, log);
  const stopQueueing = () => {
    redis.options.enableOfflineQueue = false;
  };
  redis.once('ready', stopQueueing);
  // The first attempt failed: queued commands are refused by ioredis right after
  // (maxRetriesPerRequest 0), later ones by the option.
  redis.once('close', stopQueueing);

  const quit = redis.quit.bind(redis);
  const close = () => {
    redis.disconnect();
    return 'OK' as const;
  };
  // Status may still say ready for a moment after the server went away.
  redis.quit = () => (redis.status === 'ready' ? quit().catch(close) : Promise.resolve(close()));
  redis.duplicate = (override?: Partial<Redis['options']>) =>
    failFast(new Redis({ ...redis.options, enableOfflineQueue: true, ...override }), log);
  return redis;
}

/**
 * Every failed reconnect emits `error`; one line when the connection is lost and one
 * when it is back is what an operator needs (/readyz shows the state meanwhile).
 * A listener must exist either way, or ioredis prints each error to stderr.
 */
function watchConnection(redis: Redis, log: RedisLog | undefined): void {
  let down = false;
  let lastError: string | undefined;
  redis.on('error', (err: Error) => {
    lastError = err.message;
  });
  // Emitted only for a connection lost or refused, never after quit() or disconnect().
  redis.on('reconnecting', () => {
    if (down) return;
    down = true;
    log?.warn({ err: lastError }, 'redis unreachable: reconnecting in the background');
  });
  redis.on('ready', () => {
    if (down) log?.info('redis reachable again');
    down = false;
  });
}
