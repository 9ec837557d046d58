import { inSpan, SpanKind, type Redis } from '@dzpay/platform';
import type { Sale } from '../store/payments-repository.ts';

const redisSpan = { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'redis' } };

/**
 * The fast gate in front of the reference lock: Redis `SET NX PX`. It only spares
 * Postgres the losing attempts; Postgres (a partial unique index) stays the truth.
 * While Redis is unreachable there is no gate: every attempt goes to Postgres at once,
 * no command is sent and nothing waits (the client reconnects in the background).
 */
export function referenceLocks(redis: Redis) {
  // One gate per sale, like the index behind it: a product and a QR token of the same
  // name, or two versions of a QR configuration, are different sales. A product's sale
  // is named by the partner's reference, so every spelling of it meets at one gate.
  const keyOf = (sale: Sale) =>
    `lock:${sale.merchantId}:${sale.mode}:${sale.referenceKind}:${sale.epoch}:${Buffer.from(sale.reference).toString('base64url')}`;
  return {
    /** True when this caller now holds the gate for `ttlMs`, or there is no gate. */
    async acquire(sale: Sale, holder: string, ttlMs: number) {
      if (redis.status !== 'ready') return true;
      const answer = await inSpan('redis SET reference lock', redisSpan, () =>
        redis.set(keyOf(sale), holder, 'PX', ttlMs, 'NX'),
      );
      return answer === 'OK';
    },
    /** Opens a gate whose holder no longer holds the sale in Postgres (stale). */
    async clear(sale: Sale) {
      if (redis.status !== 'ready') return;
      await inSpan('redis DEL reference lock', redisSpan, () => redis.del(keyOf(sale)));
    },
  };
}

export type ReferenceLocks = ReturnType<typeof referenceLocks>;
