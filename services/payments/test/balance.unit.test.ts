import {
  dzdTextToCentimes,
  monthDays,
  PayoutRecordRequest,
  statementMonthProblem,
} from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { balanceReply, figuresOf, type Buckets } from '../src/balance/balance.ts';
import { decidePayout, type PayoutRecord } from '../src/balance/payout.ts';

const asOf = new Date('2026-03-10T12:00:00Z');
const buckets = (b: Partial<Buckets>): Buckets => ({
  before: {},
  days: new Map(),
  after: {},
  ...b,
});

describe('the balance arithmetic', () => {
  it('balance = captured − fees − refunds − paid out, to the centime', () => {
    expect(
      figuresOf(
        { capturedCount: 2, captured: 303_050, fees: 3_000, refunds: 50_001, paidOut: 100_000 },
        0,
      ),
    ).toEqual({
      capturedCount: 2,
      captured: 303_050,
      fees: 3_000,
      refundCount: 0,
      refunds: 50_001,
      net: 250_049,
      payoutCount: 0,
      paidOut: 100_000,
      balance: 150_049,
    });
  });

  it('a payment refunded whole (total, fee included) leaves −fee: the fee stays dzpay’s', () => {
    expect(figuresOf({ captured: 151_500, fees: 1_500, refunds: 151_500 }, 0)).toMatchObject({
      net: -1_500,
      balance: -1_500,
    });
  });

  it('carries the balance from before the range through every day, quiet days included', () => {
    const reply = balanceReply(
      { from: '2026-03-08', to: '2026-03-10' },
      buckets({
        before: { captured: 10_000, fees: 500, paidOut: 2_000 },
        days: new Map([
          ['2026-03-08', { capturedCount: 1, captured: 20_000, fees: 1_000 }],
          ['2026-03-10', { refundCount: 1, refunds: 3_000, payoutCount: 1, paidOut: 4_000 }],
        ]),
        after: { captured: 7_000, fees: 70 },
      }),
      1_000,
      asOf,
    );
    expect(reply.openingBalance).toBe(7_500);
    expect(reply.days.map((d) => [d.date, d.net, d.balance])).toEqual([
      ['2026-03-08', 19_000, 26_500],
      ['2026-03-09', 0, 26_500],
      ['2026-03-10', -3_000, 19_500],
    ]);
    expect(reply.totals).toMatchObject({ captured: 20_000, net: 16_000, balance: 19_500 });
    // Overall: everything, the days after the range too.
    expect(reply.overall).toMatchObject({
      captured: 37_000,
      fees: 1_570,
      refunds: 3_000,
      paidOut: 6_000,
      balance: 37_000 - 1_570 - 3_000 - 6_000,
    });
    expect(reply.pendingRefunds).toBe(1_000);
    expect(reply.available).toBe(reply.overall.balance - 1_000);
    expect(reply.asOf).toBe('2026-03-10T12:00:00.000Z');
  });

  it('never makes available negative', () => {
    const reply = balanceReply(
      { from: '2026-03-10', to: '2026-03-10' },
      buckets({ before: { captured: 1_000 } }),
      5_000,
      asOf,
    );
    expect(reply.overall.balance).toBe(1_000);
    expect(reply.available).toBe(0);
  });
});

describe('a payout decided', () => {
  const request = {
    merchantId: '11111111-1111-4111-8111-111111111111',
    mode: 'live' as const,
    amount: 50_000,
    wallet: 'W-1',
    reference: 'BNA-1',
    operator: 'amina',
  };
  const existing: PayoutRecord = {
    id: '33333333-3333-4333-8333-333333333333',
    merchantId: request.merchantId,
    mode: 'live',
    amount: 50_000,
    wallet: 'W-1',
    reference: 'BNA-1',
    recordedBy: 'amina',
    recordedAt: '2026-03-10T10:00:00.000Z',
  };
  const money = { balance: 60_000, pendingRefunds: 0, available: 60_000 };

  it('records up to the available balance, exactly', () => {
    expect(decidePayout({ ...request, amount: 60_000 }, null, money)).toEqual({ kind: 'record' });
  });

  it('refuses one centime more, saying how much it may take', () => {
    expect(decidePayout({ ...request, amount: 60_001 }, null, money)).toEqual({
      kind: 'over-balance',
      message: 'payout of 600.01 DZD is more than the available balance of 600.00 DZD',
    });
    expect(
      decidePayout({ ...request, amount: 60_000 }, null, {
        balance: 60_000,
        pendingRefunds: 20_000,
        available: 40_000,
      }),
    ).toEqual({
      kind: 'over-balance',
      message:
        'payout of 600.00 DZD is more than the available balance of 400.00 DZD (balance 600.00 DZD, less 200.00 DZD of refunds still open)',
    });
  });

  it('answers a recorded reference again, whatever the balance has become', () => {
    const broke = { balance: 0, pendingRefunds: 0, available: 0 };
    expect(decidePayout(request, existing, broke)).toEqual({ kind: 'replay', payout: existing });
  });

  it('is refused by the contract without a whole positive amount, a reference, a clean wallet', () => {
    expect(PayoutRecordRequest.safeParse(request).success).toBe(true);
    for (const fields of [
      { amount: 0 },
      { amount: 1.5 },
      { reference: '' },
      { wallet: ' W-1' },
      { reference: 'BNA\n2' },
      { operator: '' },
    ]) {
      expect(PayoutRecordRequest.safeParse({ ...request, ...fields }).success).toBe(false);
    }
  });

  it('refuses a reference that recorded another amount, wallet or merchant', () => {
    expect(decidePayout({ ...request, amount: 40_000 }, existing, money)).toMatchObject({
      kind: 'reference-taken',
      message: expect.stringContaining('already records 500.00 DZD to wallet W-1') as string,
    });
    expect(decidePayout({ ...request, wallet: 'W-2' }, existing, money).kind).toBe(
      'reference-taken',
    );
    expect(
      decidePayout(
        { ...request, merchantId: '22222222-2222-4222-8222-222222222222' },
        existing,
        money,
      ),
    ).toMatchObject({
      kind: 'reference-taken',
      message: expect.stringContaining('another merchant') as string,
    });
  });
});

describe('amounts and months as people type them', () => {
  it.each([
    ['1500', 150_000],
    ['1500.5', 150_050],
    ['1500,50', 150_050],
    ['0.01', 1],
    [' 12 ', 1_200],
    ['0.29', 29],
  ])('reads %j exactly as %i centimes', (text, centimes) => {
    expect(dzdTextToCentimes(text)).toBe(centimes);
  });

  it.each(['', '0', '0.00', '1.500', '1 500', '1,500.50', '-5', '1e3', '12.', '.5', 'abc'])(
    'refuses %j',
    (text) => {
      expect(dzdTextToCentimes(text)).toBeNull();
    },
  );

  it('knows a month’s days, leap years included, and refuses months to come', () => {
    expect(monthDays('2028-02')).toEqual({ from: '2028-02-01', to: '2028-02-29' });
    expect(monthDays('2026-02')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(monthDays('2026-12')).toEqual({ from: '2026-12-01', to: '2026-12-31' });
    // 31 March 23:30 UTC is already April in Algiers.
    const now = new Date('2026-03-31T23:30:00Z');
    expect(statementMonthProblem('2026-04', now)).toBeNull();
    expect(statementMonthProblem('2026-05', now)).toBe('month must not be after the current month');
    expect(statementMonthProblem('2026-13', now)).toBe('month must be YYYY-MM (01 to 12)');
  });
});
