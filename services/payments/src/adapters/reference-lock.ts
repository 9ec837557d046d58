import { inSpan, SpanKind, type Redis } from '@dzpay/platform';

const redisSpan = { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'redis' } };

/**
 * The fast gate in front of the reference lock: Redis `SET NX PX`. It only spares
 * Postgres the losing attempts; Postgres (a partial unique index) stays the truth.
 */
export function referenceLocks(redis: Redis) {
  const keyOf = (merchantId: string, mode: string, reference: string) =>
    `lock:${merchantId}:${mode}:${Buffer.from(reference).toString('base64url')}`;
  return {
    /** True when this caller now holds the gate for `ttlMs`. */
    async acquire(
      merchantId: string,
      mode: string,
      reference: string,
      holder: string,
      ttlMs: number,
    ) {
      const answer = await inSpan('redis SET reference lock', redisSpan, () =>
        redis.set(keyOf(merchantId, mode, reference), holder, 'PX', ttlMs, 'NX'),
      );
      return answer === 'OK';
    },
    /** Opens a gate whose holder no longer holds the reference in Postgres (stale). */
    async clear(merchantId: string, mode: string, reference: string) {
      await inSpan('redis DEL reference lock', redisSpan, () =>
        redis.del(keyOf(merchantId, mode, reference)),
      );
    },
  };
}

export type ReferenceLocks = ReturnType<typeof referenceLocks>;
