import type { LedgerOrder, PaymentRow, RefundAck, RefundRow, Verdict } from './evidence.ts';
import { groupBy, orderOf, ordersById } from './facts.ts';

export interface RefundEvidence {
  acks: readonly RefundAck[];
  refunds: readonly RefundRow[];
  payments: readonly PaymentRow[];
  ledger: readonly LedgerOrder[];
}

/**
 * Every acknowledged refund refunded exactly what it said at the network, and the network
 * refunded nothing else: checked once the system settled.
 */
export function checkRefunds(evidence: RefundEvidence): Verdict[] {
  return [acknowledgedRefundsHappened(evidence), networkRefundsAreIntents(evidence)];
}

/**
 * A 200 names an intent that succeeded for that amount; a 202 one that ended, either way.
 * A succeeded intent's `network_reference`, when known, names an entry of its order's
 * refund history of its amount (the RRN, or `#index` in the list).
 */
function acknowledgedRefundsHappened({ acks, refunds, payments, ledger }: RefundEvidence): Verdict {
  const violations: string[] = [];
  const intents = new Map(refunds.map((r) => [r.id, r]));
  const byId = new Map(payments.map((p) => [p.id, p]));
  const orders = ordersById(ledger);
  const said = new Map<string, number>();
  for (const ack of acks) {
    const name = `refund ${ack.refundId} of ${ack.paymentId} (${ack.status}, ${ack.amount})`;
    const before = said.get(ack.refundId);
    if (before !== undefined && before !== ack.amount) {
      violations.push(`${name}: acknowledged before for ${before}`);
    }
    said.set(ack.refundId, ack.amount);
    const intent = intents.get(ack.refundId);
    if (!intent) {
      violations.push(`${name}: no such refund intent`);
      continue;
    }
    if (intent.payment_id !== ack.paymentId || intent.amount !== ack.amount) {
      violations.push(`${name}: the intent is of ${intent.payment_id} for ${intent.amount}`);
    }
    if (intent.state === 'requested') violations.push(`${name}: still unknown after settle`);
    else if (ack.status === 'succeeded' && intent.state !== 'succeeded') {
      violations.push(`${name}: the intent ended ${intent.state}`);
    }
    if (intent.state !== 'succeeded' || intent.network_reference === null) continue;
    const order = orderOf(byId.get(intent.payment_id), orders);
    const entry = order ? entryNamed(order, intent.network_reference) : undefined;
    if (!entry) {
      violations.push(
        `${name}: ${intent.network_reference} names no refund of order ${order?.orderId}`,
      );
    } else if (entry.amount !== intent.amount) {
      violations.push(
        `${name}: ${intent.network_reference} refunded ${entry.amount} at the network`,
      );
    }
  }
  return {
    name: 'every acknowledged refund happened at the network as said',
    checked: acks.length,
    violations,
  };
}

function entryNamed(order: LedgerOrder, reference: string) {
  const position = /^#(\d+)$/.exec(reference);
  if (position) return order.refunds[Number(position[1])];
  return order.refunds.find((r) => r.referenceNumber === reference);
}

/**
 * Per order, the network's refunds are the succeeded intents of the payment holding it:
 * the same amounts, as many times (none made twice, none missing), and no two intents
 * naming one history entry.
 */
function networkRefundsAreIntents({ refunds, payments, ledger }: RefundEvidence): Verdict {
  const violations: string[] = [];
  const byOrder = new Map(
    payments.flatMap((p) => (p.cardnet_order_id ? [[p.cardnet_order_id, p] as const] : [])),
  );
  const succeeded = groupBy(
    refunds.filter((r) => r.state === 'succeeded'),
    (r) => r.payment_id,
  );
  const seen = new Set<string>();
  for (const order of ledger) {
    const payment = byOrder.get(order.orderId);
    const intents = payment ? (succeeded.get(payment.id) ?? []) : [];
    if (payment) seen.add(payment.id);
    const network = sorted(order.refunds.map((r) => r.amount));
    const ours = sorted(intents.map((r) => r.amount));
    if (network.join() !== ours.join()) {
      violations.push(
        `order ${order.orderId} (${payment?.id ?? `no payment; udf1 ${order.udf1}`}): the network refunded [${network.join(', ')}], succeeded intents [${ours.join(', ')}]`,
      );
    }
    const named = intents.flatMap((r) => (r.network_reference ? [r.network_reference] : []));
    if (new Set(named).size !== named.length) {
      violations.push(
        `order ${order.orderId}: two intents name one refund entry (${named.join(', ')})`,
      );
    }
  }
  for (const [paymentId, intents] of succeeded) {
    if (!seen.has(paymentId)) {
      violations.push(
        `${paymentId}: ${intents.length} succeeded refund(s) with no order at the network`,
      );
    }
  }
  return {
    name: 'the network refunded exactly the succeeded intents',
    checked: ledger.length,
    violations,
  };
}

const sorted = (amounts: number[]) => [...amounts].sort((a, b) => a - b);
