import { describe, expect, it } from 'vitest';
import {
  checkBalance,
  type BalanceAnswer,
  type BalanceEvidence,
  type PayoutRow,
} from '../oracle/balance.ts';
import type { RefundRow } from '../oracle/evidence.ts';
import { date, MERCHANT, OTHER_MERCHANT, paid, payment } from './oracle-fixtures.ts';

// MERCHANT: two successes of 1 550,50 DZD (fee 50 DZD) at T0+10 s and T0+20 s, one
// refunded 500 DZD at T0+200 s; a failed attempt; dzpay's own return of a late payment;
// a payout of 1 000 DZD at T0+100 s. OTHER_MERCHANT: one success, nothing else.
const payments = [
  paid('p1', 10),
  paid('p2', 20, { status: 'refunded' }),
  payment('p3', { status: 'failed' }),
  paid('p4', 30, { merchant_id: OTHER_MERCHANT }),
];
const refund = (id: string, fields: Partial<RefundRow>): RefundRow => ({
  id,
  payment_id: 'p2',
  amount: 50_000,
  reason: 'merchant',
  state: 'succeeded',
  network_reference: null,
  updated_at: date(200),
  ...fields,
});
const refunds = [
  refund('r1', {}),
  refund('r2', { state: 'failed', amount: 7_000 }),
  refund('r3', { state: 'requested', amount: 3_000 }),
  refund('r4', { payment_id: 'p3', reason: 'late', amount: 155_050 }),
];
const payout = (id: string, fields: Partial<PayoutRow> = {}): PayoutRow => ({
  id,
  merchant_id: MERCHANT,
  mode: 'test',
  amount: 100_000,
  reference: `BNA-${id}`,
  recorded_at: date(100),
  ...fields,
});
const payouts = [payout('o1')];

/** The answer dzpay should give, in the shape GET /api/v1/balance has. */
function answer(merchantId: string, overall: Record<string, number>): BalanceAnswer {
  const figures = {
    capturedCentimes: overall.captured!,
    feesCentimes: overall.fees!,
    refundsCentimes: overall.refunds!,
    paidOutCentimes: overall.paidOut!,
    balanceCentimes: overall.captured! - overall.fees! - overall.refunds! - overall.paidOut!,
  };
  return {
    merchantId,
    mode: 'test',
    httpStatus: 200,
    data: {
      overall: { ...figures },
      openingBalanceCentimes: 0,
      days: [{ date: '2030-03-01', ...figures }],
      totals: { ...figures },
    },
  };
}
const right = answer(MERCHANT, {
  captured: 310_100,
  fees: 10_000,
  refunds: 50_000,
  paidOut: 100_000,
});
const evidence = (overrides: Partial<BalanceEvidence> = {}): BalanceEvidence => ({
  payments,
  refunds,
  payouts,
  answers: [
    right,
    answer(OTHER_MERCHANT, { captured: 155_050, fees: 5_000, refunds: 0, paidOut: 0 }),
  ],
  attempts: [
    {
      merchantId: MERCHANT,
      mode: 'test',
      reference: 'BNA-o1',
      amount: 100_000,
      outcome: 'recorded',
      payoutId: 'o1',
    },
    {
      merchantId: MERCHANT,
      mode: 'test',
      reference: 'BNA-refused',
      amount: 900_000,
      outcome: 'refused',
    },
  ],
  inFlightMs: 60_000,
  ...overrides,
});
const violations = (e: BalanceEvidence) => checkBalance(e).flatMap((v) => v.violations);

describe('the balance oracle', () => {
  it('holds when dzpay’s answer is the rows’ own sums: 1 501 DZD net of everything', () => {
    const verdicts = checkBalance(evidence());
    expect(verdicts.map((v) => [v.name, v.checked, v.violations])).toEqual([
      ['balance = captured − fees − refunds − payouts, to the centime', 2, []],
      ['payouts recorded as the operators were told', 2, []],
      ['no payout takes more than the balance', 1, []],
    ]);
    expect(right.data!.overall!.balanceCentimes).toBe(150_100);
  });

  it('catches a balance one centime off, and one that forgot the payouts', () => {
    const off = answer(MERCHANT, {
      captured: 310_100,
      fees: 10_000,
      refunds: 50_000,
      paidOut: 100_000,
    });
    off.data!.overall!.balanceCentimes = 150_099;
    expect(violations(evidence({ answers: [off] }))).toEqual([
      `${MERCHANT}/test: balanceCentimes is 150099, the rows say 150100`,
      `${MERCHANT}/test: balance 150099 is not captured − fees − refunds − paidOut = 150100`,
    ]);
    const noPayouts = answer(MERCHANT, {
      captured: 310_100,
      fees: 10_000,
      refunds: 50_000,
      paidOut: 0,
    });
    expect(violations(evidence({ answers: [noPayouts] }))).toEqual([
      `${MERCHANT}/test: paidOutCentimes is 0, the rows say 100000`,
      `${MERCHANT}/test: balanceCentimes is 250100, the rows say 150100`,
    ]);
  });

  it('catches a balance that counts the amount before the fee, or dzpay’s own returns', () => {
    const amountNotTotal = answer(MERCHANT, {
      captured: 300_100,
      fees: 10_000,
      refunds: 50_000,
      paidOut: 100_000,
    });
    expect(violations(evidence({ answers: [amountNotTotal] }))).toContain(
      `${MERCHANT}/test: capturedCentimes is 300100, the rows say 310100`,
    );
    const ownReturns = answer(MERCHANT, {
      captured: 310_100,
      fees: 10_000,
      refunds: 205_050,
      paidOut: 100_000,
    });
    expect(violations(evidence({ answers: [ownReturns] }))).toContain(
      `${MERCHANT}/test: refundsCentimes is 205050, the rows say 50000`,
    );
  });

  it('catches days that do not carry the balance to the totals, and a failed answer', () => {
    const broken = answer(MERCHANT, {
      captured: 310_100,
      fees: 10_000,
      refunds: 50_000,
      paidOut: 100_000,
    });
    broken.data!.days = [{ ...broken.data!.days![0]!, balanceCentimes: 1 }];
    expect(violations(evidence({ answers: [broken] }))).toEqual([
      `${MERCHANT}/test: 2030-03-01 closes on 1, its movements say 150100`,
    ]);
    expect(
      violations(
        evidence({
          answers: [{ merchantId: MERCHANT, mode: 'test', httpStatus: 503, data: null }],
        }),
      ),
    ).toEqual([`${MERCHANT}/test: GET /api/v1/balance answered 503`]);
  });

  it('catches a payout acknowledged but missing, recorded twice, refused yet recorded', () => {
    expect(violations(evidence({ payouts: [] }))).toContain(
      'payout BNA-o1 was acknowledged, no row holds it',
    );
    expect(
      violations(
        evidence({ payouts: [...payouts, payout('o2', { reference: 'BNA-o1', amount: 1 })] }),
      ),
    ).toContain('bank reference test/BNA-o1 records 2 payouts');
    expect(
      violations(
        evidence({ payouts: [...payouts, payout('o3', { reference: 'BNA-refused', amount: 1 })] }),
      ),
    ).toContain('payout BNA-refused was refused, yet a row holds it (o3)');
  });

  it('matches a bank reference whatever its case, as payments stores it upper-cased', () => {
    const typedLower = evidence({
      attempts: evidence().attempts.map((attempt) =>
        attempt.reference === 'BNA-o1' ? { ...attempt, reference: ' bna-O1 ' } : attempt,
      ),
    });
    expect(violations(typedLower)).toEqual([]);
    expect(
      violations({
        ...typedLower,
        payouts: [...payouts, payout('o2', { reference: 'bna-o1', amount: 1 })],
      }).some((violation) => /records 2 payouts/.test(violation)),
    ).toBe(true);
  });

  it('catches a payout that took more than was there when it was recorded', () => {
    // At T0+15 s only p1 was paid: 1 505,50 DZD net of its fee.
    const early = payout('o1', { recorded_at: date(15), amount: 150_051 });
    expect(violations(evidence({ payouts: [early], attempts: [] }))).toContain(
      'payout o1 (BNA-o1) took 150051; at most 150050 was there to take',
    );
    expect(
      violations(
        evidence({
          payouts: [payout('o1', { recorded_at: date(15), amount: 150_050 })],
          attempts: [],
        }),
      ).filter((v) => v.includes('took')),
    ).toEqual([]);
    // A refund confirmed long before counts against it; one confirmed moments before may
    // not have been seen yet, and is given the benefit of the doubt.
    const afterRefund = payout('o1', { recorded_at: date(400), amount: 300_100 - 50_000 + 1 });
    expect(violations(evidence({ payouts: [afterRefund], attempts: [] }))).toContain(
      `payout o1 (BNA-o1) took 250101; at most 250100 was there to take`,
    );
    const justAfter = payout('o1', { recorded_at: date(230), amount: 250_101 });
    expect(
      violations(evidence({ payouts: [justAfter], attempts: [] })).filter((v) =>
        v.includes('took'),
      ),
    ).toEqual([]);
  });
});
