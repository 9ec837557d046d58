import { expireIfStale, type Order } from './domain/order.ts';

/**
 * The sandbox's orders, in memory: a restart forgets them, which is what a sandbox
 * wants. Every read applies the session timeout first, so callers always see an order
 * as it is at `now`. Node runs one handler at a time between awaits, so a read followed
 * by `save` without an await in between is atomic.
 */
export interface OrderBook {
  /** False when the order number is taken: BPC order numbers are unique forever. */
  add(order: Order): boolean;
  byId(orderId: string, now: Date): Order | undefined;
  byNumber(orderNumber: string, now: Date): Order | undefined;
  save(order: Order): void;
  /** Every order, in the order they were registered (the control API's ledger). */
  all(now: Date): Order[];
}

export function orderBook(): OrderBook {
  const orders = new Map<string, Order>();
  const idByNumber = new Map<string, string>();

  const current = (orderId: string | undefined, now: Date): Order | undefined => {
    const stored = orderId === undefined ? undefined : orders.get(orderId);
    if (!stored) return undefined;
    const order = expireIfStale(stored, now);
    if (order !== stored) orders.set(order.orderId, order);
    return order;
  };

  return {
    add(order) {
      if (idByNumber.has(order.orderNumber)) return false;
      idByNumber.set(order.orderNumber, order.orderId);
      orders.set(order.orderId, order);
      return true;
    },
    byId: (orderId, now) => current(orderId, now),
    byNumber: (orderNumber, now) => current(idByNumber.get(orderNumber), now),
    save(order) {
      orders.set(order.orderId, order);
    },
    all: (now) => [...orders.keys()].flatMap((orderId) => current(orderId, now) ?? []),
  };
}
