import type { LedgerOrder, Millis, PaymentRow } from './evidence.ts';

/** The oracle's small vocabulary over raw evidence, shared by its checks (and nothing else). */

const ms = (iso: string): Millis => Date.parse(iso);

/** DZD as sent on the wire (two decimals at most) to integer centimes. */
export const centimesOf = (dzd: number): number => Math.round(dzd * 100);

export const isInFlight = (p: PaymentRow): boolean =>
  p.status === 'pending' || p.status === 'processing';

/** Succeeded at some point: `refunded` is reached only from `success`. */
export const hasSucceeded = (p: PaymentRow): boolean =>
  p.status === 'success' || p.status === 'refunded';

export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** The attempt created last; equal creation instants are told apart by the greater id. */
export function latest(rows: readonly PaymentRow[]): PaymentRow | null {
  let best: PaymentRow | null = null;
  for (const row of rows) {
    if (
      !best ||
      row.created_at.getTime() > best.created_at.getTime() ||
      (row.created_at.getTime() === best.created_at.getTime() && row.id > best.id)
    ) {
      best = row;
    }
  }
  return best;
}

export const ordersById = (ledger: readonly LedgerOrder[]): Map<string, LedgerOrder> =>
  new Map(ledger.map((order) => [order.orderId, order]));

/** The order of a payment, as dzpay recorded it. */
export function orderOf(
  payment: PaymentRow | undefined,
  orders: ReadonlyMap<string, LedgerOrder>,
): LedgerOrder | undefined {
  return payment?.cardnet_order_id ? orders.get(payment.cardnet_order_id) : undefined;
}

/** When the network first held the order deposited (money taken), or null if never. */
export function depositedAt(order: LedgerOrder): Millis | null {
  const op = order.operations.find((o) => o.orderStatus === 2 || o.orderStatus === 4);
  return op ? ms(op.at) : null;
}

/** When the network had refunded the whole order, or null if it never did. */
export function fullyRefundedAt(order: LedgerOrder): Millis | null {
  const op = order.operations.find((o) => o.orderStatus === 4);
  return op ? ms(op.at) : null;
}

/** Money the network keeps on the order now: deposited and not refunded (centimes). */
export const keptOf = (order: LedgerOrder): number =>
  order.status === 2 ? order.amount - order.refundedAmount : 0;

/** A payer can still pay the order (registered), or its money is held (pre-authorised). */
export const isPayable = (order: LedgerOrder): boolean => order.status === 0 || order.status === 1;

export const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);
