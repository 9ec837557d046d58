import type { Sql } from '@dzpay/platform';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Money whose fate dzpay cannot settle on its own, as Prometheus sees it: what has stayed
 * undecided past `overdueMs` (read from Postgres when scraped: an attempt whose order
 * cannot be read, money owed back, a refund whose outcome is still unknown), and money
 * the card network refunded beyond dzpay's intents. Each alerts (docs/runbook.md).
 */
export function settlementMetrics(registry: Registry, sql: Sql, overdueMs: number) {
  new Gauge({
    name: 'dzpay_settlement_overdue',
    help: 'Undecided this long after it should have been (OVERDUE_ALERT_MS), by kind: attempt (order unreadable), refund-due (money owed back), refund-unknown (refund outcome unknown)',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const [row] = await sql<{ attempt: number; refund_due: number; refund_unknown: number }[]>`
        select
          (select count(*)::int from payments
            where status in ('pending', 'processing')
              and expires_at < now() - ${overdueMs} * interval '1 millisecond') as attempt,
          (select count(*)::int from payments
            where refund_due
              and expires_at < now() - ${overdueMs} * interval '1 millisecond') as refund_due,
          (select count(*)::int from refunds
            where state = 'requested'
              and asked_at < now() - ${overdueMs} * interval '1 millisecond') as refund_unknown`.catch(
        () => [],
      );
      if (!row) return;
      this.set({ kind: 'attempt' }, row.attempt);
      this.set({ kind: 'refund-due' }, row.refund_due);
      this.set({ kind: 'refund-unknown' }, row.refund_unknown);
    },
  });
  const unexplained = new Counter({
    name: 'dzpay_refund_unexplained_total',
    help: 'Times a card order showed more refunded than dzpay refund intents account for (docs/runbook.md)',
    registers: [registry],
  });
  return {
    unexplainedRefund(): void {
      unexplained.inc();
    },
  };
}
