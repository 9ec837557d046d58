import { describe, expect, it } from 'vitest';
import type { LedgerOrder, RefundAck, RefundRow } from '../oracle/evidence.ts';
import { checkRefunds, type RefundEvidence } from '../oracle/refunds.ts';
import { depositedOrder, isoAt, paid } from './oracle-fixtures.ts';

const payments = [paid('a', 5, { refunded_amount: 60_000 }), paid('b', 5)];

function intent(id: string, amount: number, overrides: Partial<RefundRow> = {}): RefundRow {
  return {
    id,
    payment_id: 'a',
    amount,
    reason: 'merchant',
    state: 'succeeded',
    network_reference: null,
    ...overrides,
  };
}

/** Order of `a`, refunded these amounts (RRN `rrn-{i}`). */
function refundedTimes(...amounts: number[]): LedgerOrder {
  const refunds = amounts.map((amount, i) => ({
    amount,
    at: isoAt(10 + i),
    referenceNumber: `rrn-${i}`,
  }));
  return {
    ...depositedOrder('a', 5),
    refundedAmount: amounts.reduce((sum, amount) => sum + amount, 0),
    refunds,
    operations: [
      ...depositedOrder('a', 5).operations,
      ...refunds.map((r) => ({
        operation: 'refund',
        at: r.at,
        orderStatus: 2 as const,
        amount: r.amount,
      })),
    ],
  };
}

const ack = (
  refundId: string,
  amount: number,
  status: RefundAck['status'] = 'succeeded',
): RefundAck => ({
  paymentId: 'a',
  refundId,
  amount,
  status,
});

function verdicts(evidence: Omit<RefundEvidence, 'payments'>) {
  const [acknowledged, network] = checkRefunds({ ...evidence, payments });
  return { acknowledged: acknowledged!, network: network! };
}

describe('every acknowledged refund happened at the network as said', () => {
  it('holds for a 200 whose intent names its history entry, and 202s that ended either way', () => {
    const { acknowledged } = verdicts({
      acks: [ack('i1', 10_000), ack('i2', 50_000, 'pending'), ack('i3', 70_000, 'pending')],
      refunds: [
        intent('i1', 10_000, { network_reference: 'rrn-0' }),
        intent('i2', 50_000, { network_reference: '#1' }),
        intent('i3', 70_000, { state: 'failed' }),
      ],
      ledger: [refundedTimes(10_000, 50_000), depositedOrder('b', 5)],
    });
    expect(acknowledged).toMatchObject({ checked: 3, violations: [] });
  });

  it('catches a 200 whose intent failed, a 202 left unknown, another amount, and wrong entries', () => {
    const { acknowledged } = verdicts({
      acks: [
        ack('i1', 10_000),
        ack('i2', 50_000, 'pending'),
        ack('i3', 20_000),
        ack('i4', 10_000),
        ack('i5', 10_000),
        ack('ghost', 1),
      ],
      refunds: [
        intent('i1', 10_000, { state: 'failed' }),
        intent('i2', 50_000, { state: 'requested' }),
        intent('i3', 30_000),
        intent('i4', 10_000, { network_reference: 'rrn-9' }),
        intent('i5', 10_000, { network_reference: 'rrn-1' }),
      ],
      ledger: [refundedTimes(10_000, 50_000)],
    });
    expect(acknowledged.violations).toEqual([
      expect.stringContaining('i1 of a (succeeded, 10000): the intent ended failed'),
      expect.stringContaining('i2 of a (pending, 50000): still unknown after settle'),
      expect.stringContaining('i3 of a (succeeded, 20000): the intent is of a for 30000'),
      expect.stringContaining('rrn-9 names no refund of order order-a'),
      expect.stringContaining('rrn-1 refunded 50000 at the network'),
      expect.stringContaining('ghost of a (succeeded, 1): no such refund intent'),
    ]);
  });
});

describe('the network refunded exactly the succeeded intents', () => {
  it('holds when each order’s refunds are its payment’s succeeded intents', () => {
    const { network } = verdicts({
      acks: [],
      refunds: [
        intent('i1', 50_000, { network_reference: 'rrn-1' }),
        intent('i2', 10_000, { network_reference: 'rrn-0' }),
        intent('i3', 10_000, { state: 'failed' }),
      ],
      ledger: [refundedTimes(10_000, 50_000), depositedOrder('b', 5)],
    });
    expect(network).toMatchObject({ checked: 2, violations: [] });
  });

  it('catches a refund made twice, ones recorded but never made, and refunds of an unknown order', () => {
    const stranger: LedgerOrder = { ...refundedTimes(5_000), orderId: 'order-x', udf1: 'x' };
    const { network } = verdicts({
      acks: [],
      refunds: [
        intent('i1', 10_000, { network_reference: 'rrn-0' }),
        intent('i2', 20_000, { payment_id: 'b', network_reference: 'rrn-0' }),
        intent('i3', 20_000, { payment_id: 'b', network_reference: 'rrn-0' }),
        intent('i4', 1_000, { payment_id: 'no-order' }),
      ],
      ledger: [refundedTimes(10_000, 10_000), depositedOrder('b', 5), stranger],
    });
    expect(network.violations).toEqual([
      expect.stringContaining(
        'order order-a (a): the network refunded [10000, 10000], succeeded intents [10000]',
      ),
      expect.stringContaining(
        'order order-b (b): the network refunded [], succeeded intents [20000, 20000]',
      ),
      expect.stringContaining('order order-b: two intents name one refund entry'),
      expect.stringContaining('order order-x (no payment; udf1 x): the network refunded [5000]'),
      expect.stringContaining('no-order: 1 succeeded refund(s) with no order at the network'),
    ]);
  });
});
