import { z } from 'zod';
import type { Order } from './order.ts';

const isoInstant = z.iso.datetime();

/**
 * One order as the control API's ledger shows it: what a test needs to check the
 * network's side of a payment (was it charged, refunded, reversed), in plain JSON.
 */
export const LedgerOrder = z.object({
  orderId: z.string(),
  orderNumber: z.string(),
  /** Centimes. */
  amount: z.int(),
  status: z.literal([0, 1, 2, 3, 4, 6]),
  refundedAmount: z.int(),
  registeredAt: isoInstant,
  authorizedAt: isoInstant.nullable(),
  refunds: z.array(z.object({ amount: z.int(), at: isoInstant })),
  reversedAt: isoInstant.nullable(),
  /** The merchant's udf1 from jsonParams (dzpay's adapter puts its payment id there). */
  udf1: z.string().nullable(),
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
    refunds: order.refunds.map((refund) => ({ amount: refund.amount, at: iso(refund.at) })),
    reversedAt: order.reversedAt === null ? null : iso(order.reversedAt),
    udf1: order.jsonParams.udf1 ?? null,
  };
}
