import { describe, expect, it } from 'vitest';
import type { CardOrderStatus, NetworkRefund } from '../src/domain/card-order.ts';
import { refundVerdict, unexplainedRefunded } from '../src/domain/refund-intent.ts';

const ASKED = new Date('2026-11-26T10:00:00Z');
const HORIZON_MS = 60 * 60 * 1000;
const minutes = (n: number) => new Date(ASKED.getTime() + n * 60_000);

function order(change: Partial<CardOrderStatus> = {}): CardOrderStatus {
  return {
    orderId: 'o-1',
    orderNumber: '0000000001',
    state: 'deposited',
    amount: 155_000,
    refundedAmount: 0,
    refunds: [],
    actionCode: 0,
    respCode: '00',
    description: null,
    approvalCode: '123456',
    maskedPan: null,
    authorizedAt: null,
    registeredAt: null,
    udf1: null,
    ...change,
  };
}

const refund = (
  amount: number,
  at: Date | null,
  reference: string | null = null,
): NetworkRefund => ({
  amount,
  at,
  reference,
});

const verdict = (
  o: CardOrderStatus,
  options: { amount?: number; base?: number; now?: Date; accounted?: string[] } = {},
) =>
  refundVerdict({
    intent: { amount: options.amount ?? 50_000, baseRefunded: options.base ?? 0, askedAt: ASKED },
    order: o,
    accounted: new Set(options.accounted ?? []),
    now: options.now ?? minutes(1),
    horizonMs: HORIZON_MS,
  });

describe('refundVerdict with a refund history', () => {
  it('finds the refund as the entry of its amount dated after it was asked', () => {
    const o = order({ refundedAmount: 50_000, refunds: [refund(50_000, minutes(0.5), '111')] });
    expect(verdict(o)).toEqual({ kind: 'happened', entry: '111' });
  });

  it('never takes an entry another intent accounts for (two partial refunds of one amount)', () => {
    const o = order({
      refundedAmount: 50_000,
      refunds: [refund(50_000, minutes(-10), '111')],
    });
    expect(verdict(o, { accounted: ['111'] })).toEqual({ kind: 'not-yet' });
    const both = order({
      refundedAmount: 100_000,
      refunds: [refund(50_000, minutes(-10), '111'), refund(50_000, minutes(2), '222')],
    });
    expect(verdict(both, { accounted: ['111'] })).toEqual({ kind: 'happened', entry: '222' });
  });

  it('never takes an entry of another amount, nor one long before it was asked', () => {
    expect(
      verdict(order({ refundedAmount: 40_000, refunds: [refund(40_000, minutes(1))] })),
    ).toEqual({ kind: 'not-yet' });
    expect(
      verdict(order({ refundedAmount: 50_000, refunds: [refund(50_000, minutes(-30), '9')] })),
    ).toEqual({ kind: 'not-yet' });
  });

  it('names an entry without a reference by its place in the history', () => {
    const o = order({
      refundedAmount: 60_000,
      refunds: [refund(10_000, minutes(-1)), refund(50_000, null)],
    });
    expect(verdict(o)).toEqual({ kind: 'happened', entry: '#1' });
  });

  it('stays not known while the refund may still land, inside the horizon', () => {
    expect(verdict(order(), { now: minutes(59) })).toEqual({ kind: 'not-yet' });
  });

  it('takes it as never made once the horizon passed without it', () => {
    expect(verdict(order(), { now: minutes(60) }).kind).toBe('did-not-happen');
  });

  it('takes it as never made at once when the order can no longer take it', () => {
    expect(verdict(order({ state: 'reversed' })).kind).toBe('did-not-happen');
    expect(verdict(order({ refundedAmount: 120_000 })).kind).toBe('did-not-happen');
  });
});

describe('refundVerdict without a refund history (older status versions)', () => {
  it('reads the refunded amount against the base the intent was written with', () => {
    const o = order({ refunds: null, refundedAmount: 70_000 });
    expect(verdict(o, { base: 20_000 })).toEqual({ kind: 'happened', entry: null });
    expect(verdict(o, { base: 30_000 })).toEqual({ kind: 'not-yet' });
  });
});

describe('unexplainedRefunded', () => {
  it('is what the network refunded beyond the intents not failed', () => {
    const intents = [
      { amount: 30_000, state: 'succeeded' as const },
      { amount: 20_000, state: 'failed' as const },
      { amount: 10_000, state: 'requested' as const },
    ];
    expect(unexplainedRefunded({ refundedAmount: 40_000 }, intents)).toBe(0);
    expect(unexplainedRefunded({ refundedAmount: 60_000 }, intents)).toBe(20_000);
  });
});
