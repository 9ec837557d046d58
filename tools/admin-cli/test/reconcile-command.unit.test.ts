import { describe, expect, it } from 'vitest';
import { formatReport, parseSince } from '../src/reconcile-command.ts';

describe('dzpay reconcile --since', () => {
  it('reads a duration back from now, in seconds, minutes, hours or days', () => {
    expect(parseSince('90s')).toEqual({ windowMs: 90_000 });
    expect(parseSince('90m')).toEqual({ windowMs: 5_400_000 });
    expect(parseSince('12h')).toEqual({ windowMs: 43_200_000 });
    expect(parseSince('2d')).toEqual({ windowMs: 172_800_000 });
  });

  it('reads an ISO timestamp as an instant', () => {
    expect(parseSince('2025-03-08T13:00:00+01:00')).toEqual({ since: '2025-03-08T12:00:00.000Z' });
  });

  it.each(['', '0d', '2 days', 'yesterday', '2025-03-08', '-1h', '2025-13-40T00:00:00Z'])(
    'refuses %j',
    (value) => {
      expect(() => parseSince(value)).toThrow('a duration (90m, 12h, 2d) or an ISO timestamp');
    },
  );
});

describe('the reconciliation report as printed', () => {
  const report = {
    ran: true,
    reason: null,
    since: '2025-03-08T12:00:00.000Z',
    until: '2025-03-10T12:00:00.000Z',
    modes: [
      { mode: 'test' as const, outcome: 'checked' as const, reason: null, ordersSeen: 14 },
      {
        mode: 'live' as const,
        outcome: 'skipped' as const,
        reason: 'no card network configured',
        ordersSeen: 0,
      },
    ],
    counts: { ordersSeen: 14, paymentsMatched: 12, inFlight: 1, fixed: 1, alarms: 1, busy: 0 },
    discrepancies: [
      {
        kind: 'captured-for-failed' as const,
        outcome: 'fixed' as const,
        mode: 'test' as const,
        paymentId: '0b8f3c1e-1d2a-4b7c-9f00-0a1b2c3d4e5f',
        orderId: 'order-1',
        amount: 155_000,
        dzpayAmount: 0,
        networkAmount: 155_000,
        detail: 'the payment failed but its order holds money',
      },
      {
        kind: 'orphan-order' as const,
        outcome: 'alarm' as const,
        mode: 'test' as const,
        paymentId: null,
        orderId: 'order-22',
        amount: 5_050,
        dzpayAmount: null,
        networkAmount: 5_050,
        detail: 'no dzpay payment has it',
      },
    ],
    omitted: 0,
  };

  it('shows each mode, a table of discrepancies with their detail, then the counts', () => {
    expect(formatReport(report).split('\n')).toEqual([
      'reconciliation of the orders registered 2025-03-08T12:00:00.000Z .. 2025-03-10T12:00:00.000Z',
      '  test: 14 orders',
      '  live: skipped: no card network configured',
      '',
      'KIND                 OUTCOME  MODE  PAYMENT                               ORDER     DZPAY  NETWORK  AT STAKE',
      'captured-for-failed  fixed    test  0b8f3c1e-1d2a-4b7c-9f00-0a1b2c3d4e5f  order-1    0.00  1550.00   1550.00',
      '    the payment failed but its order holds money',
      'orphan-order         alarm    test  -                                     order-22      -    50.50     50.50',
      '    no dzpay payment has it',
      '(amounts in DZD)',
      '',
      'orders seen 14, payments matched 12, in flight 1, fixed 1, alarms 1, busy 0',
    ]);
  });

  it('says how many were left out of a long list', () => {
    expect(formatReport({ ...report, omitted: 3 })).toContain(
      "(amounts in DZD)\n3 more not listed: see payments' logs\n",
    );
  });

  it('says so when nothing differs, and when another reconciliation kept it from running', () => {
    expect(formatReport({ ...report, discrepancies: [] })).toContain('\nno discrepancy\n');
    expect(
      formatReport({ ...report, ran: false, reason: 'another reconciliation is running' }),
    ).toBe('reconciliation not run: another reconciliation is running');
  });
});
