import { z } from 'zod';
import { MerchantScope } from '../scope.ts';
import { AnsweredAgain, IdempotencyRequest, PaymentView } from './payment.ts';

/** A payment refunded, in whole or in part: `POST /api/v1/payments/{id}/refund`. */

export const RefundPaymentBody = z.strictObject({
  /** Centimes; the whole remaining amount when omitted. */
  amount: z
    .int({ error: 'amount must be an integer number of centimes' })
    .positive({ error: 'amount must be positive' })
    .optional(),
});
export type RefundPaymentBody = z.infer<typeof RefundPaymentBody>;

// ---- NATS messages between the gateway and payments ----

/** The refund a refund request made or found (its Idempotency-Key's). */
const RefundView = z.object({
  id: z.uuid(),
  /** Centimes. */
  amount: z.int(),
  /** pending: asked of the card network, its outcome not known yet (HTTP 202). */
  status: z.enum(['pending', 'succeeded']),
});
type RefundView = z.infer<typeof RefundView>;

/** `data` of the answer to POST /api/v1/payments/{id}/refund: the payment, and the refund. */
export const PaymentsRefundReply = PaymentView.extend({ refund: RefundView });
export type PaymentsRefundReply = z.infer<typeof PaymentsRefundReply>;
/** payments.refund's reply: the refund, and whether it is an earlier one answered again. */
export const PaymentsRefundAnswer = PaymentsRefundReply.extend(AnsweredAgain.shape);
export type PaymentsRefundAnswer = z.infer<typeof PaymentsRefundAnswer>;

export const PaymentsRefundRequest = MerchantScope.extend({
  id: z.string(),
  amount: z.int().positive().optional(),
  idempotency: IdempotencyRequest.optional(),
});
export type PaymentsRefundRequest = z.infer<typeof PaymentsRefundRequest>;
