import type { ReconciliationReport, Verdict } from './evidence.ts';

export interface ReconciliationEvidence {
  report: ReconciliationReport;
  /** Orders the sandbox's ledger holds for the run: the reconciler must have seen them all. */
  ledgerOrders: number;
}

/**
 * After settle the reconciler, run over the whole run, must find nothing: every
 * discrepancy it reports (fixed or not) is money that was wrong for a while. It must
 * also have looked: run, read every mode it has a network for, seen every order.
 */
export function checkReconciliation({ report, ledgerOrders }: ReconciliationEvidence): Verdict {
  const violations: string[] = [];
  if (!report.ran)
    violations.push(`the reconciler did not run: ${report.reason ?? 'no reason given'}`);
  for (const mode of report.modes ?? []) {
    if (mode.outcome === 'failed') {
      violations.push(
        `the reconciler could not read ${mode.mode}: ${mode.reason ?? 'no reason given'}`,
      );
    }
  }
  if (report.ran && report.counts.ordersSeen < ledgerOrders) {
    violations.push(
      `the reconciler saw ${report.counts.ordersSeen} orders of the ledger's ${ledgerOrders}`,
    );
  }
  for (const d of report.discrepancies) {
    const where = [d.paymentId && `payment ${d.paymentId}`, d.orderId && `order ${d.orderId}`]
      .filter(Boolean)
      .join(', ');
    const money = d.amount === undefined ? '' : ` (${d.amount} centimes)`;
    const outcome = d.outcome ? ` [${d.outcome}]` : '';
    violations.push(
      `${d.kind}${outcome} ${where || 'unnamed'}${money}${d.detail ? `: ${d.detail}` : ''}`,
    );
  }
  return {
    name: 'the reconciler finds nothing',
    checked: report.counts.ordersSeen,
    violations,
  };
}
