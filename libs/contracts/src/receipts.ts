import validator from 'validator';
import { z } from 'zod';
import { Language, type PaymentView } from './payments/payment.ts';
import { MerchantScope } from './scope.ts';

/** The spec's limit on a recipient address. */
const MAX_EMAIL_LENGTH = 254;

/**
 * Body of POST /api/v1/payments/{id}/receipt/email. The address is checked by
 * validator.js (local part, domain labels and their lengths, a top-level domain), not by
 * a regex of our own. `language` picks the receipt's language; the payment's by default.
 */
export const EmailReceiptBody = z.strictObject({
  email: z
    .string({ error: 'email must be a string' })
    .max(MAX_EMAIL_LENGTH, { error: `email must be at most ${MAX_EMAIL_LENGTH} characters` })
    .refine(
      (value) => validator.isEmail(value, { allow_display_name: false, allow_ip_domain: false }),
      {
        error: 'email must be a valid email address',
      },
    ),
  language: Language.optional(),
});
export type EmailReceiptBody = z.infer<typeof EmailReceiptBody>;

/** `data` of the 200 answer: the spec's "Receipt email result". */
export const ReceiptEmailResult = z.object({
  sent: z.boolean(),
  language: Language,
});
export type ReceiptEmailResult = z.infer<typeof ReceiptEmailResult>;

// ---- NATS messages between the gateway and receipts ----

/** What receipts needs of the merchant; the gateway owns it and sends it along. */
export const ReceiptSender = MerchantScope.extend({
  /** Shown on the receipt. */
  name: z.string(),
  emailsPerHour: z.int().positive(),
  /** The API key that asked, for the send log. */
  keyId: z.uuid(),
});
export type ReceiptSender = z.infer<typeof ReceiptSender>;

export const ReceiptEmailRequest = z.object({
  merchant: ReceiptSender,
  paymentId: z.string(),
  email: z.string(),
  language: Language.optional(),
});
export type ReceiptEmailRequest = z.infer<typeof ReceiptEmailRequest>;

/** The facts a receipt shows, as payments reports them. */
export type ReceiptPayment = Pick<
  PaymentView,
  | 'id'
  | 'reference'
  | 'amount'
  | 'fees'
  | 'total'
  | 'currency'
  | 'language'
  | 'status'
  | 'orderId'
  | 'approvalCode'
  | 'maskedPan'
  | 'paidAt'
>;
