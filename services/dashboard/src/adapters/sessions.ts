import { createHash, randomBytes } from 'node:crypto';
import type { Language, Mode } from '@dzpay/contracts';
import type { Redis } from '@dzpay/platform';

/** What a dashboard session remembers between requests (stored in Redis only). */
export interface SessionRecord {
  userId: string;
  merchantId: string;
  mode: Mode;
  language: Language;
  csrfToken: string;
  /** Sign-in time, epoch ms: the session ends sessionMaxSeconds later whatever its use. */
  createdAt: number;
  /** A notice for the next page (set before a redirect, shown once). */
  flash?: { kind: 'ok' | 'error'; text: string };
}

export interface SessionTimes {
  idleSeconds: number;
  maxSeconds: number;
}

// Keys live under the client's deployment prefix (REDIS_PREFIX, like the rate limits'
// `rate:`). A session is stored under the SHA-256 of its id, so a Redis dump holds no
// usable cookie; each user has a set of their sessions' hashes, for "log out everywhere".
const SESSION = 'dashboard:session:';
const USER_SESSIONS = 'dashboard:user-sessions:';

function keyOf(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('base64url');
}

/** Sessions in Redis with a sliding idle expiry and a fixed maximum age. */
export function dashboardSessions(redis: Redis, times: SessionTimes, now = () => Date.now()) {
  const ttlOf = (record: SessionRecord) => {
    const left = Math.ceil((record.createdAt + times.maxSeconds * 1000 - now()) / 1000);
    return Math.min(times.idleSeconds, left);
  };

  return {
    /** A new session; answers its id (the cookie's value, never stored as is). */
    async create(record: SessionRecord): Promise<string> {
      const id = randomBytes(32).toString('base64url');
      const hash = keyOf(id);
      await redis
        .multi()
        .set(SESSION + hash, JSON.stringify(record), 'EX', ttlOf(record))
        .sadd(USER_SESSIONS + record.userId, hash)
        .expire(USER_SESSIONS + record.userId, times.maxSeconds)
        .exec()
        .then(failedStep);
      return id;
    },

    /** The session behind a cookie, its idle expiry started again; null when over. */
    async read(id: string): Promise<SessionRecord | null> {
      if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
      const key = SESSION + keyOf(id);
      const stored = await redis.get(key);
      if (!stored) return null;
      const record = JSON.parse(stored) as SessionRecord;
      const ttl = ttlOf(record);
      if (ttl <= 0) {
        await this.destroy(id, record.userId);
        return null;
      }
      await redis.expire(key, ttl);
      return record;
    },

    /** Writes a changed session back (language, mode, flash), keeping its expiry. */
    async save(id: string, record: SessionRecord): Promise<void> {
      await redis.set(SESSION + keyOf(id), JSON.stringify(record), 'KEEPTTL', 'XX');
    },

    async destroy(id: string, userId: string): Promise<void> {
      const hash = keyOf(id);
      await redis
        .multi()
        .del(SESSION + hash)
        .srem(USER_SESSIONS + userId, hash)
        .exec()
        .then(failedStep);
    },

    /** Ends every session of a user ("log out everywhere", a disabled user). */
    async destroyAllOf(userId: string): Promise<number> {
      const hashes = await redis.smembers(USER_SESSIONS + userId);
      const pipeline = redis.multi();
      for (const hash of hashes) pipeline.del(SESSION + hash);
      pipeline.del(USER_SESSIONS + userId);
      await pipeline.exec().then(failedStep);
      return hashes.length;
    },
  };
}

export type DashboardSessions = ReturnType<typeof dashboardSessions>;

/** MULTI answers each step's error in place: the first one fails the whole call. */
function failedStep(results: [Error | null, unknown][] | null): void {
  const failed = results?.find(([error]) => error)?.[0];
  if (failed) throw failed;
  if (!results) throw new Error('redis transaction aborted');
}
