import { Gauge, type Registry } from 'prom-client';
import { DISCREPANCY_KINDS } from './discrepancies.ts';
import type { ReconciliationReport } from './reconciler.ts';

/**
 * The reconciliation as Prometheus sees it, set after each run this replica made: the
 * alarms it raised by kind (fixed ones are not: dzpay made them right), and when it
 * ended. Each replica reports its own runs; alert on the maximum over replicas, and on a
 * last run older than two intervals (docs/runbook.md, Reconciliation).
 */
export function reconciliationMetrics(registry: Registry, clock: () => Date = () => new Date()) {
  const discrepancies = new Gauge({
    name: 'dzpay_reconciliation_discrepancies',
    help: 'Alarms the last reconciliation run of this replica raised, by kind (docs/runbook.md, Reconciliation)',
    labelNames: ['kind'],
    registers: [registry],
  });
  const lastRun = new Gauge({
    name: 'dzpay_reconciliation_last_run_timestamp_seconds',
    help: 'When the last reconciliation run of this replica ended (unix seconds)',
    registers: [registry],
  });
  return {
    record: (report: ReconciliationReport): void => {
      for (const kind of DISCREPANCY_KINDS) {
        const alarms = report.discrepancies.filter(
          (entry) => entry.kind === kind && entry.outcome === 'alarm',
        );
        discrepancies.set({ kind }, alarms.length);
      }
      lastRun.set(clock().getTime() / 1000);
    },
  };
}
