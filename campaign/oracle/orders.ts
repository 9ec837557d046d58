import type { LedgerOrder, PaymentRow, Verdict } from './evidence.ts';
import { hasSucceeded, isPayable, keptOf } from './facts.ts';

export interface OrderEvidence {
  payments: readonly PaymentRow[];
  ledger: readonly LedgerOrder[];
  /** The system has settled: no refund may still be owed, no order left to cancel. */
  settled: boolean;
}

/**
 * The network's orders against dzpay's outcomes:
 * - a failed (declined, expired, cancelled) payment's order can no longer be paid (not
 *   registered, not pre-authorised), unless dzpay still watches it (`refund_due`) and
 *   has not settled yet;
 * - a failed payment's order keeps no money, unless dzpay owes it back (`refund_due`)
 *   and has not settled yet;
 * - every success (refunded since or not) has a deposited order for exactly its total;
 * - an order no payment holds keeps no money and holds none.
 */
export function checkOrders(evidence: OrderEvidence): Verdict {
  const violations: string[] = [];
  const orders = new Map(evidence.ledger.map((o) => [o.orderId, o]));
  const held = new Set<string>();
  for (const p of evidence.payments) {
    const order = p.cardnet_order_id ? orders.get(p.cardnet_order_id) : undefined;
    if (order) held.add(order.orderId);
    // Until settled, dzpay may still be cancelling or refunding what it owes (refund due).
    if (p.status === 'failed' && order && (evidence.settled || !p.refund_due)) {
      const what = `${p.id} (${p.failure_reason ?? 'failed'}, ${p.refund_due ? 'a refund due' : 'no refund due'})`;
      if (isPayable(order)) {
        violations.push(
          `${what}: order ${order.orderId} can still be paid (status ${order.status})`,
        );
      } else if (keptOf(order) > 0) {
        violations.push(`${what}: order ${order.orderId} keeps ${keptOf(order)}`);
      }
    }
    if (hasSucceeded(p)) {
      const deposited = order && (order.status === 2 || order.status === 4);
      if (!deposited || order.amount !== p.total) {
        violations.push(
          `${p.id} (${p.status}, total ${p.total}): order ${p.cardnet_order_id ?? 'none'} is ${order ? `status ${order.status} for ${order.amount}` : 'not at the network'}`,
        );
      }
    }
  }
  for (const order of evidence.ledger) {
    if (held.has(order.orderId)) continue;
    if (keptOf(order) > 0 || order.status === 1) {
      violations.push(
        `order ${order.orderId} (udf1 ${order.udf1}) holds money no dzpay payment accounts for`,
      );
    }
  }
  return {
    name: 'no failed payment leaves an order payable or keeping money; every success is deposited',
    checked: evidence.ledger.length,
    violations,
  };
}
