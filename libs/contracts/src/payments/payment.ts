import { z } from 'zod';
import { MerchantScope } from '../scope.ts';

/**
 * A payment as every operation on it sees it: its statuses, its views, and what a
 * request about one payment carries. Registering, refunding, listing and the payer's
 * checkout build on these (registration.ts, refunds.ts, payments-list.ts, checkout.ts).
 */

export const Language = z.enum(['ar', 'fr', 'en']);
export type Language = z.infer<typeof Language>;

/** Statuses of a hosted-checkout payment as merchants see them. */
export const CheckoutStatus = z.enum([
  'created',
  'processing',
  'success',
  'failed',
  'expired',
  /** Cancelled by the merchant before it was paid (internal failed, reason `cancelled`). */
  'cancelled',
  'refunded',
]);
export type CheckoutStatus = z.infer<typeof CheckoutStatus>;

/**
 * What every view of a payment says: its reference, money and language. `amount` and
 * `total` are centimes; `fees` is whole DZD on the merchant API (the spec's unit) and
 * centimes on the payer's page view, which never leaves dzpay.
 */
export const PaymentBasics = z.object({
  reference: z.string(),
  amount: z.int(),
  fees: z.int(),
  total: z.int(),
  currency: z.string(),
  language: Language,
  expiresAt: z.iso.datetime(),
});

/** A payment as the merchant API returns it (never with the checkout link). */
export const PaymentView = PaymentBasics.extend({
  id: z.uuid(),
  status: CheckoutStatus,
  successUrl: z.string().nullable(),
  failureUrl: z.string().nullable(),
  metadata: z.record(z.string(), z.json()).nullable(),
  orderId: z.string().nullable(),
  approvalCode: z.string().nullable(),
  maskedPan: z.string().nullable(),
  failureReason: z.string().nullable(),
  refundedAmount: z.int(),
  /**
   * Centimes of a refund asked of the card network whose outcome is not known yet (its
   * answer was lost); 0 otherwise. It becomes refundedAmount, with payment.refunded,
   * once the network's order shows it.
   */
  pendingRefundAmount: z.int(),
  paidAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  /**
   * The payment link the payment was made through (payment-links.ts), absent for any
   * other payment. Its reference names the link too, and its metadata is the link's.
   */
  paymentLinkId: z.uuid().optional(),
});
export type PaymentView = z.infer<typeof PaymentView>;

// ---- NATS messages between the gateway and payments ----

/** An Idempotency-Key as the gateway passes it on: the key, and what it was sent with. */
export const IdempotencyRequest = z.object({
  key: z.string().min(1).max(255),
  /** SHA-256 of the request body: the same key with another body is refused. */
  fingerprint: z.string(),
});

/**
 * What a write's reply says of itself, beside what it answers: `replayed`, the stored
 * answer of an earlier request with the same Idempotency-Key; `unchanged`, there was
 * nothing to do (cancelling a cancelled payment, deactivating a deactivated link). Either
 * way nothing was done now: the gateway sends `Idempotent-Replayed: true` for the first,
 * records neither in the audit log, and answers the rest.
 */
export const AnsweredAgain = z.object({
  replayed: z.boolean().optional(),
  unchanged: z.boolean().optional(),
});
export type AnsweredAgain = z.infer<typeof AnsweredAgain>;

export const PaymentsGetRequest = MerchantScope.extend({ id: z.string() });
export type PaymentsGetRequest = z.infer<typeof PaymentsGetRequest>;

export const PaymentsCancelRequest = MerchantScope.extend({
  id: z.string(),
  idempotency: IdempotencyRequest.optional(),
});
/** payments.cancel's reply: the payment, and whether this cancel did anything. */
export const PaymentsCancelReply = PaymentView.extend(AnsweredAgain.shape);
export type PaymentsCancelReply = z.infer<typeof PaymentsCancelReply>;
export type PaymentsCancelRequest = z.infer<typeof PaymentsCancelRequest>;

/** Ids of payments are UUIDs; anything else names no payment (and never reaches SQL). */
export function isUuid(value: string): boolean {
  return z.uuid().safeParse(value).success;
}
