import { describe, expect, it } from 'vitest';
import { LATE_PAYMENT_GRACE_MS, type CardOrderStatus } from '../src/domain/card-order.ts';
import {
  compareOrder,
  type ComparisonInput,
  type ReconciledPayment,
} from '../src/reconciliation/discrepancies.ts';

const NOW = new Date('2025-03-10T12:00:00Z');
const minutes = (n: number) => new Date(NOW.getTime() + n * 60_000);

const order = (fields: Partial<CardOrderStatus> = {}): CardOrderStatus => ({
  orderId: 'order-1',
  orderNumber: '0000000001',
  state: 'deposited',
  amount: 155_000,
  refundedAmount: 0,
  refunds: null,
  actionCode: 0,
  respCode: '00',
  description: null,
  approvalCode: '123456',
  maskedPan: '628058**0009',
  authorizedAt: minutes(-70),
  registeredAt: minutes(-75),
  udf1: 'payment-1',
  ...fields,
});

const payment = (fields: Partial<ReconciledPayment> = {}): ReconciledPayment => ({
  id: 'payment-1',
  status: 'success',
  total: 155_000,
  refundedAmount: 0,
  refundDue: false,
  cardnetOrderId: 'order-1',
  // The window closed an hour ago: only in-flight rules say otherwise.
  expiresAt: minutes(-60),
  ...fields,
});

const compare = (input: Partial<ComparisonInput>) =>
  compareOrder({ order: order(), payment: payment(), intents: [], now: NOW, ...input });

/** The discrepancies found, as kind → [amount, fix]. */
function found(input: Partial<ComparisonInput>) {
  const result = compare(input);
  if (result.kind !== 'compared') throw new Error(`in flight: ${result.why}`);
  return Object.fromEntries(result.discrepancies.map((d) => [d.kind, [d.amount, d.fix]]));
}

describe('compareOrder', () => {
  it('finds nothing when a success, its deposit, its amount and its refunds agree', () => {
    expect(found({})).toEqual({});
    expect(
      found({
        order: order({ refundedAmount: 50_000 }),
        payment: payment({ refundedAmount: 50_000 }),
        intents: [{ amount: 50_000, state: 'succeeded' }],
      }),
    ).toEqual({});
    expect(
      found({
        order: order({ state: 'refunded', refundedAmount: 155_000 }),
        payment: payment({ status: 'refunded', refundedAmount: 155_000 }),
        intents: [{ amount: 155_000, state: 'succeeded' }],
      }),
    ).toEqual({});
  });

  it('finds nothing for a failed payment whose order took nothing, or whose money went back', () => {
    const failed = payment({ status: 'failed' });
    for (const state of ['declined', 'reversed', 'failed'] as const) {
      expect(found({ payment: failed, order: order({ state }) }), state).toEqual({});
    }
    expect(
      found({
        payment: failed,
        order: order({ state: 'refunded', refundedAmount: 155_000 }),
        intents: [{ amount: 155_000, state: 'succeeded' }],
      }),
    ).toEqual({});
  });

  it('sets a refund due for money captured for a failed payment', () => {
    expect(found({ payment: payment({ status: 'failed' }) })).toEqual({
      'captured-for-failed': [155_000, 'refund-due'],
    });
    // Partly refunded already: what is still kept is at stake.
    expect(
      found({
        payment: payment({ status: 'failed' }),
        order: order({ refundedAmount: 5_000 }),
        intents: [{ amount: 5_000, state: 'succeeded' }],
      }),
    ).toEqual({ 'captured-for-failed': [150_000, 'refund-due'] });
  });

  it('leaves a failed payment alone while its refund is due: the sweeper is on it', () => {
    expect(compare({ payment: payment({ status: 'failed', refundDue: true }) }).kind).toBe(
      'in-flight',
    );
  });

  it('sets a refund due for a failed payment whose order is still payable past the grace', () => {
    for (const state of ['registered', 'preauthorized'] as const) {
      expect(found({ payment: payment({ status: 'failed' }), order: order({ state }) })).toEqual({
        'payable-after-failure': [155_000, 'refund-due'],
      });
    }
  });

  it('waits out the late-payment grace before calling a payable order a discrepancy', () => {
    const justClosed = payment({ status: 'failed', expiresAt: minutes(-5) });
    expect(compare({ payment: justClosed, order: order({ state: 'registered' }) }).kind).toBe(
      'in-flight',
    );
    const graceOver = new Date(minutes(-5).getTime() + LATE_PAYMENT_GRACE_MS + 1);
    expect(
      compare({ payment: justClosed, order: order({ state: 'registered' }), now: graceOver }).kind,
    ).toBe('compared');
  });

  it('raises money the network refunded beyond dzpay’s intents', () => {
    expect(found({ order: order({ refundedAmount: 20_000 }) })).toEqual({
      'refunded-beyond-intents': [20_000, null],
    });
    // A refund dzpay gave up on (failed) that landed after all.
    expect(
      found({
        order: order({ refundedAmount: 20_000 }),
        intents: [{ amount: 20_000, state: 'failed' }],
      }),
    ).toEqual({ 'refunded-beyond-intents': [20_000, null] });
    // Refunded twice for one intent.
    expect(
      found({
        order: order({ refundedAmount: 40_000 }),
        payment: payment({ refundedAmount: 20_000 }),
        intents: [{ amount: 20_000, state: 'succeeded' }],
      }),
    ).toEqual({ 'refunded-beyond-intents': [20_000, null] });
  });

  it('raises a refund dzpay recorded that the network does not show', () => {
    expect(found({ payment: payment({ refundedAmount: 30_000 }) })).toEqual({
      'refunded-less-than-recorded': [30_000, null],
    });
    expect(found({ intents: [{ amount: 10_000, state: 'succeeded' }] })).toEqual({
      'refunded-less-than-recorded': [10_000, null],
    });
  });

  it('raises a success whose order was never deposited, or that the network does not know', () => {
    for (const state of [
      'registered',
      'preauthorized',
      'declined',
      'reversed',
      'failed',
    ] as const) {
      expect(found({ order: order({ state }) }), state).toEqual({
        'success-without-deposit': [155_000, null],
      });
    }
    expect(found({ order: null })).toEqual({ 'success-without-deposit': [155_000, null] });
    expect(
      found({ order: null, payment: payment({ status: 'refunded', refundedAmount: 5_000 }) }),
    ).toEqual({ 'success-without-deposit': [150_000, null] });
  });

  it('raises a paid payment whose order is for another amount', () => {
    expect(found({ order: order({ amount: 150_000 }) })).toEqual({
      'amount-mismatch': [5_000, null],
    });
    const result = compare({ order: order({ amount: 160_000 }) });
    expect(result.kind === 'compared' && result.discrepancies[0]).toMatchObject({
      dzpayAmount: 155_000,
      networkAmount: 160_000,
    });
  });

  it('raises an order holding money for no payment, or for a payment that names another order', () => {
    expect(found({ payment: null })).toEqual({ 'orphan-order': [155_000, null] });
    expect(found({ payment: null, order: order({ state: 'preauthorized' }) })).toEqual({
      'orphan-order': [155_000, null],
    });
    expect(found({ payment: payment({ cardnetOrderId: 'order-2' }) })).toEqual({
      'orphan-order': [155_000, null],
    });
    // Holding nothing (a registration's unused order, a declined one): nothing to say.
    for (const state of ['registered', 'declined', 'reversed'] as const) {
      expect(found({ payment: null, order: order({ state }) }), state).toEqual({});
    }
  });

  it('skips an open attempt inside its window and grace, and a refund not known yet', () => {
    const open = payment({ status: 'processing', expiresAt: minutes(5) });
    expect(compare({ payment: open, order: order({ state: 'registered' }) }).kind).toBe(
      'in-flight',
    );
    expect(compare({ payment: open, order: order({ refundedAmount: 99 }) }).kind).toBe('in-flight');
    // Registered at the network, the row not updated yet.
    const registering = payment({ status: 'pending', cardnetOrderId: null, expiresAt: minutes(5) });
    expect(compare({ payment: registering }).kind).toBe('in-flight');
    expect(
      compare({
        order: order({ refundedAmount: 20_000 }),
        intents: [{ amount: 20_000, state: 'requested' }],
      }).kind,
    ).toBe('in-flight');
  });

  it('raises an attempt still open past its window and the grace', () => {
    const stuck = payment({ status: 'processing' });
    expect(found({ payment: stuck })).toEqual({ 'undecided-attempt': [155_000, null] });
    expect(found({ payment: stuck, order: order({ state: 'registered' }) })).toEqual({
      'undecided-attempt': [0, null],
    });
  });

  it('reports several discrepancies of one order together', () => {
    expect(
      found({ order: order({ state: 'reversed', amount: 150_000 }), payment: payment({}) }),
    ).toEqual({
      'success-without-deposit': [155_000, null],
      'amount-mismatch': [5_000, null],
    });
  });
});
