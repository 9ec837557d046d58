import { z } from 'zod';
import type { Order } from './order.ts';

const isoInstant = z.iso.datetime();
const orderStatus = z.literal([0, 1, 2, 3, 4, 6]);

/** One operation the network executed on an order, and the order's status right after. */
export const LedgerOperation = z.object({
  operation: z.enum(['register', 'pay', 'confirm', 'refund', 'reverse']),
  at: isoInstant,
  orderStatus,
  /** register: the order's amount; refund: the refund's (centimes). */
  amount: z.int().optional(),
  /** refund: its RRN, as getOrderStatusExtended's `refunds` shows it. */
  referenceNumber: z.string().optional(),
  /** confirm: the ErrorCode it answered ("0", "2" or "3"). */
  errorCode: z.string().optional(),
});
export type LedgerOperation = z.infer<typeof LedgerOperation>;

/**
 * One order as the control API's ledger shows it: what a test needs to check the
 * network's side of a payment (was it charged, refunded, reversed, when, and by which
 * calls), in plain JSON. A call the network refused or never executed is not in it.
 */
export const LedgerOrder = z.object({
  orderId: z.string(),
  orderNumber: z.string(),
  /** Centimes. */
  amount: z.int(),
  status: orderStatus,
  refundedAmount: z.int(),
  registeredAt: isoInstant,
  authorizedAt: isoInstant.nullable(),
  refunds: z.array(z.object({ amount: z.int(), at: isoInstant, referenceNumber: z.string() })),
  reversedAt: isoInstant.nullable(),
  /** The merchant's udf1 from jsonParams (dzpay's adapter puts its payment id there). */
  udf1: z.string().nullable(),
  /** Every operation executed, oldest first. */
  operations: z.array(LedgerOperation),
});
export type LedgerOrder = z.infer<typeof LedgerOrder>;

export function ledgerEntry(order: Order): LedgerOrder {
  const iso = (epochMs: number) => new Date(epochMs).toISOString();
  return {
    orderId: order.orderId,
    orderNumber: order.orderNumber,
    amount: order.amount,
    status: order.status,
    refundedAmount: order.refundedAmount,
    registeredAt: iso(order.registeredAt),
    authorizedAt: order.authorizedAt === null ? null : iso(order.authorizedAt),
    refunds: order.refunds.map((refund) => ({
      amount: refund.amount,
      at: iso(refund.at),
      referenceNumber: refund.referenceNumber,
    })),
    reversedAt: order.reversedAt === null ? null : iso(order.reversedAt),
    udf1: order.jsonParams.udf1 ?? null,
    operations: order.history.map((event) => ({ ...event, at: iso(event.at) })),
  };
}
