import { describe, expect, it } from 'vitest';
import type { ReconciliationReport } from '../oracle/evidence.ts';
import { checkReconciliation } from '../oracle/reconciliation.ts';

const clean: ReconciliationReport = {
  ran: true,
  reason: null,
  modes: [
    { mode: 'test', outcome: 'checked', reason: null, ordersSeen: 12 },
    { mode: 'live', outcome: 'skipped', reason: 'no card network', ordersSeen: 0 },
  ],
  counts: { ordersSeen: 12, paymentsMatched: 12 },
  discrepancies: [],
};

describe('the reconciler finds nothing', () => {
  it('holds for a report that read every order and found nothing', () => {
    expect(checkReconciliation({ report: clean, ledgerOrders: 12 })).toMatchObject({
      checked: 12,
      violations: [],
    });
  });

  it('fails on every discrepancy, fixed or not', () => {
    const verdict = checkReconciliation({
      report: {
        ...clean,
        discrepancies: [
          {
            kind: 'captured-for-failed',
            paymentId: 'p1',
            orderId: 'o1',
            amount: 1500,
            outcome: 'fixed',
            detail: 'kept',
          },
          { kind: 'refunded-beyond-intents', paymentId: null, orderId: 'o2', outcome: 'alarm' },
        ],
      },
      ledgerOrders: 12,
    });
    expect(verdict.violations).toEqual([
      'captured-for-failed [fixed] payment p1, order o1 (1500 centimes): kept',
      'refunded-beyond-intents [alarm] order o2',
    ]);
  });

  it('fails when it did not run, could not read a mode, or missed orders', () => {
    const notRun = checkReconciliation({
      report: { ...clean, ran: false, reason: 'another reconciliation was running' },
      ledgerOrders: 12,
    });
    expect(notRun.violations).toEqual([
      'the reconciler did not run: another reconciliation was running',
    ]);
    const blind = checkReconciliation({
      report: {
        ...clean,
        modes: [{ mode: 'test', outcome: 'failed', reason: 'access denied', ordersSeen: 0 }],
        counts: { ordersSeen: 3, paymentsMatched: 3 },
      },
      ledgerOrders: 12,
    });
    expect(blind.violations).toEqual([
      'the reconciler could not read test: access denied',
      "the reconciler saw 3 orders of the ledger's 12",
    ]);
  });
});
