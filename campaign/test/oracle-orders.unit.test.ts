import { describe, expect, it } from 'vitest';
import type { LedgerOrder } from '../oracle/evidence.ts';
import { checkOrders } from '../oracle/orders.ts';
import { depositedOrder, order, paid, payment, refundedOrder } from './oracle-fixtures.ts';

const failed = (id: string, reason: string, refundDue = false) =>
  payment(id, {
    status: 'failed',
    failure_reason: reason,
    cardnet_order_id: `order-${id}`,
    refund_due: refundDue,
  });
const reversed = (id: string): LedgerOrder => ({ ...order(id), status: 3 });
const declined = (id: string): LedgerOrder => ({ ...order(id), status: 6 });

describe('orders against dzpay outcomes', () => {
  it('holds for cancelled, expired, declined and late-paid-then-refunded failures, and deposited successes', () => {
    const verdict = checkOrders({
      payments: [
        failed('c', 'cancelled'),
        failed('e', 'expired'),
        failed('d', 'declined'),
        failed('l', 'late'),
        paid('s', 5),
        paid('r', 5, { status: 'refunded', refunded_amount: 155_050 }),
        payment('open', { status: 'pending' }),
      ],
      ledger: [
        reversed('c'),
        reversed('e'),
        declined('d'),
        refundedOrder('l', 5, 9),
        depositedOrder('s', 5),
        refundedOrder('r', 5, 9),
        order('open'),
      ],
      settled: true,
    });
    expect(verdict).toMatchObject({ checked: 7, violations: [] });
  });

  it('catches a cancelled payment whose order can still be paid, and one pre-authorised', () => {
    const verdict = checkOrders({
      payments: [failed('c', 'cancelled'), failed('e', 'expired')],
      ledger: [order('c'), { ...order('e'), status: 1 }],
      settled: true,
    });
    expect(verdict.violations).toEqual([
      expect.stringContaining(
        'c (cancelled, no refund due): order order-c can still be paid (status 0)',
      ),
      expect.stringContaining(
        'e (expired, no refund due): order order-e can still be paid (status 1)',
      ),
    ]);
  });

  it('allows money kept while a refund is due before settle, never without one, never after', () => {
    const owed = failed('o', 'expired', true);
    const forgotten = failed('f', 'expired');
    const ledger = [depositedOrder('o', 5), depositedOrder('f', 5)];
    const running = checkOrders({ payments: [owed, forgotten], ledger, settled: false });
    expect(running.violations).toEqual([
      expect.stringContaining('f (expired, no refund due): order order-f keeps 155050'),
    ]);
    const settled = checkOrders({ payments: [owed, forgotten], ledger, settled: true });
    expect(settled.violations).toHaveLength(2);
    expect(settled.violations[0]).toContain(
      'o (expired, a refund due): order order-o keeps 155050',
    );
  });

  it('catches a success without a deposit for its total, and money on an order nobody holds', () => {
    const verdict = checkOrders({
      payments: [paid('s', 5), paid('w', 5), paid('n', 5, { cardnet_order_id: null })],
      ledger: [
        reversed('s'),
        depositedOrder('w', 5, { amount: 100 }),
        { ...depositedOrder('lost', 5), udf1: 'n' },
      ],
      settled: true,
    });
    expect(verdict.violations).toEqual([
      expect.stringContaining('s (success, total 155050): order order-s is status 3 for 155050'),
      expect.stringContaining('w (success, total 155050): order order-w is status 2 for 100'),
      expect.stringContaining('n (success, total 155050): order none is not at the network'),
      expect.stringContaining(
        'order order-lost (udf1 n) holds money no dzpay payment accounts for',
      ),
    ]);
  });
});
