import type { Sql } from '@dzpay/platform';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * Webhook deliveries as Prometheus sees them: attempts by where they left the delivery
 * (success, a retry scheduled, fail), how long partners took, and the backlog (pending
 * deliveries, and those already due) read from Postgres when scraped.
 */
export function deliveryMetrics(registry: Registry, sql: Sql) {
  const attempts = new Counter({
    name: 'dzpay_webhook_attempts_total',
    help: 'Webhook attempts, by the state they left the delivery in (success, pending: a retry is scheduled, fail)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'dzpay_webhook_attempt_duration_seconds',
    help: 'How long partners took to answer a webhook (or to fail it)',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [registry],
  });
  new Gauge({
    name: 'dzpay_webhook_deliveries_pending',
    help: 'Deliveries not yet delivered nor failed, and how many of them are due now',
    labelNames: ['due'],
    registers: [registry],
    async collect() {
      const [row] = await sql<{ pending: number; due: number }[]>`
        select count(*)::int as pending,
               count(*) filter (where next_attempt_at <= now())::int as due
        from deliveries where state = 'pending'`.catch(() => [{ pending: 0, due: 0 }]);
      this.set({ due: 'false' }, (row?.pending ?? 0) - (row?.due ?? 0));
      this.set({ due: 'true' }, row?.due ?? 0);
    },
  });
  return {
    attempted(outcome: 'success' | 'pending' | 'fail', latencyMs: number): void {
      attempts.inc({ outcome });
      seconds.observe(latencyMs / 1000);
    },
  };
}

export type DeliveryMetrics = ReturnType<typeof deliveryMetrics>;
