import { z } from 'zod';
import { CheckoutStatus, PaymentBasics } from './payment.ts';

/** The hosted checkout: what the payer's pages ask payments for, and what they show. */

/** The payment window of the hosted checkout. */
export const PAYMENT_WINDOW_MS = 15 * 60 * 1000;

/** What the payer's page shows; nothing secret, nothing of other payments. */
export const CheckoutView = PaymentBasics.extend({
  paymentId: z.uuid(),
  merchantName: z.string(),
  status: CheckoutStatus,
  /** Where the payer goes once the outcome is known; null means dzpay's own result page. */
  redirectUrl: z.string().nullable(),
});
export type CheckoutView = z.infer<typeof CheckoutView>;

export const CheckoutTokenRequest = z.object({ token: z.string().min(1) });
export const CheckoutStartReply = z.object({
  view: CheckoutView,
  /** The card network's form, when the payment can still be paid. */
  formUrl: z.string().nullable(),
});
export const CheckoutReturnRequest = z.object({ paymentId: z.string() });
