import type { Sql } from '@dzpay/platform';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Reference locks as Prometheus sees them: how many are held right now (read from
 * Postgres, the truth, when scraped) and how attempts to take one ended.
 */
export function referenceLockMetrics(registry: Registry, sql: Sql) {
  new Gauge({
    name: 'dzpay_reference_locks_held',
    help: 'Product references (and single-use QR codes) an in-flight attempt holds now',
    registers: [registry],
    async collect() {
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from payments
        where locks_reference and status in ('pending', 'processing')`.catch(() => [{ n: 0 }]);
      this.set(row?.n ?? 0);
    },
  });
  const attempts = new Counter({
    name: 'dzpay_reference_lock_attempts_total',
    help: 'Attempts to take a reference lock, by outcome (held, locked, paid, failed)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  return {
    attempted(outcome: 'held' | 'locked' | 'paid' | 'failed'): void {
      attempts.inc({ outcome });
    },
  };
}

export type ReferenceLockMetrics = ReturnType<typeof referenceLockMetrics>;
