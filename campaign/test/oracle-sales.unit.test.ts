import { describe, expect, it } from 'vitest';
import { checkSales } from '../oracle/sales.ts';
import {
  date,
  depositedOrder,
  MERCHANT,
  order,
  paid,
  payment,
  refundedOrder,
} from './oracle-fixtures.ts';

/** A partner whose lookups ignore letter case: `p0-1` is its product `P0-1`. */
const caseInsensitive = (_merchant: string, reference: string) =>
  ['P0-1', 'P0-2'].find((p) => p.toLowerCase() === reference.toLowerCase()) ?? null;

describe('one sale per product as the partner sees it', () => {
  it('holds for one success per product, failures, a refunded sale and QR codes aside', () => {
    const verdict = checkSales({
      payments: [
        paid('a', 5),
        payment('b', { reference: 'p0-1', status: 'failed', created_at: date(1) }),
        paid('c', 5, { reference: 'P0-2', status: 'refunded', refunded_amount: 155_050 }),
        paid('d', 9, { reference: 'p0-2' }),
        paid('q', 5, { reference: 'QRTOKEN', reference_kind: 'qr' }),
        paid('q2', 6, { reference: 'QRTOKEN', reference_kind: 'qr' }),
      ],
      ledger: [
        depositedOrder('a', 5),
        order('b'),
        refundedOrder('c', 5, 8),
        depositedOrder('d', 9),
      ],
      productOf: caseInsensitive,
    });
    expect(verdict).toMatchObject({ checked: 2, violations: [] });
  });

  it('catches one product paid twice under two spellings, and two orders keeping money', () => {
    const verdict = checkSales({
      payments: [
        paid('a', 5),
        paid('b', 6, { reference: 'p0-1' }),
        paid('c', 5, { reference: 'P0-2' }),
        payment('d', { reference: 'P0-2', status: 'failed', cardnet_order_id: 'order-d' }),
      ],
      ledger: [
        depositedOrder('a', 5),
        depositedOrder('b', 6),
        depositedOrder('c', 5),
        depositedOrder('d', 5),
      ],
      productOf: caseInsensitive,
    });
    expect(verdict.violations).toEqual([
      `${MERCHANT}/test/P0-1: 2 successes (P0-1 a, p0-1 b)`,
      `${MERCHANT}/test/P0-1: the network keeps money for 2 attempts (P0-1 a, p0-1 b)`,
      `${MERCHANT}/test/P0-2: the network keeps money for 2 attempts (P0-2 c, P0-2 d)`,
    ]);
  });

  it('keeps a reference the partner no longer resolves as a sale of its own', () => {
    const verdict = checkSales({
      payments: [paid('a', 5, { reference: 'gone' }), paid('b', 6, { reference: 'gone' })],
      ledger: [],
      productOf: () => null,
    });
    expect(verdict.violations).toEqual([
      `${MERCHANT}/test/unresolved:gone: 2 successes (gone a, gone b)`,
    ]);
  });
});
