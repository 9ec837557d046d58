import { z } from 'zod';
import { cleanText } from './validation.ts';
import { MerchantScope } from './scope.ts';

export const Language = z.enum(['ar', 'fr', 'en']);
export type Language = z.infer<typeof Language>;

/** The spec's default amount range, in centimes, for merchants without their own. */
export const DEFAULT_AMOUNT_RANGE = { min: 5_000, max: 100_000_000 } as const;
/** metadata is refused above this many bytes of JSON (VALIDATION422_UNPROCESSABLE_ENTITY). */
export const MAX_METADATA_BYTES = 4096;
/** The payment window of the hosted checkout. */
export const PAYMENT_WINDOW_MS = 15 * 60 * 1000;

const PaymentUrl = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .max(1000, { error: `${field} must be at most 1000 characters` })
    .refine(isAbsoluteHttpUrl, { error: `${field} must be an absolute http(s) URL` });

/** `http://host…` or `https://host…` written out: `http:host` parses but is not absolute. */
function isAbsoluteHttpUrl(value: string): boolean {
  if (!/^https?:\/\/[^/?#\s]/i.test(value) || !cleanText(value) || !URL.canParse(value))
    return false;
  return new URL(value).hostname.length > 0;
}

/** How deep metadata may nest: deeper JSON is no order data, and costs stack to check. */
export const MAX_METADATA_DEPTH = 16;

/**
 * Body of POST /api/v1/payments. Business rules that depend on the merchant (amount
 * range, currency, wallet) and the metadata size have their own error codes and are
 * checked after this schema.
 */
export const RegisterPaymentBody = z
  .strictObject({
    amount: z.int({ error: 'amount must be an integer number of centimes' }),
    currency: z
      .string({ error: 'currency must be a string' })
      .min(1, { error: 'currency should not be empty' }),
    reference: z
      .string({ error: 'reference must be a string' })
      .min(1, { error: 'reference should not be empty' })
      .max(255, { error: 'reference must be at most 255 characters' })
      .refine(cleanText, {
        error: 'reference must not contain control characters or broken Unicode',
      }),
    // null means absent, as many client libraries send an unset optional field.
    successUrl: PaymentUrl('successUrl').nullish(),
    failureUrl: PaymentUrl('failureUrl').nullish(),
    language: Language.nullish(),
    metadata: z
      .record(z.string(), z.json(), { error: 'metadata must be a JSON object' })
      .refine(storableJson, { error: 'metadata must not contain NUL characters or broken Unicode' })
      .nullish(),
  })
  .transform(withoutNulls);
export type RegisterPaymentBody = z.infer<typeof RegisterPaymentBody>;

/** The body with its null optional fields left out: null and absent mean the same. */
function withoutNulls<T extends Record<string, unknown>>(
  body: T,
): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null)) as {
    [K in keyof T]: Exclude<T[K], null>;
  };
}

export const RefundPaymentBody = z.strictObject({
  /** Centimes; the whole remaining amount when omitted. */
  amount: z
    .int({ error: 'amount must be an integer number of centimes' })
    .positive({ error: 'amount must be positive' })
    .optional(),
});
export type RefundPaymentBody = z.infer<typeof RefundPaymentBody>;

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
const PaymentBasics = z.object({
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
});
export type PaymentView = z.infer<typeof PaymentView>;

/** `data` of the 201 answer to POST /api/v1/payments, exactly the spec's fields. */
export const RegisteredPayment = PaymentBasics.extend({
  id: z.uuid(),
  status: z.literal('created'),
  checkoutUrl: z.url(),
});
export type RegisteredPayment = z.infer<typeof RegisteredPayment>;

// ---- NATS messages between the gateway and payments ----

/** What payments needs to know of the merchant; the gateway owns it and sends it along. */
export const MerchantTerms = MerchantScope.extend({
  name: z.string(),
  /** Whole DZD per payment. */
  feeDzd: z.int().nonnegative(),
  minAmount: z.int().positive(),
  maxAmount: z.int().positive(),
  hasWallet: z.boolean(),
});
export type MerchantTerms = z.infer<typeof MerchantTerms>;

export const IdempotencyRequest = z.object({
  key: z.string().min(1).max(255),
  /** SHA-256 of the request body: the same key with another body is refused. */
  fingerprint: z.string(),
});

export const PaymentsRegisterRequest = z.object({
  merchant: MerchantTerms,
  payment: RegisterPaymentBody,
  idempotency: IdempotencyRequest.optional(),
});
export type PaymentsRegisterRequest = z.infer<typeof PaymentsRegisterRequest>;

export const PaymentsRegisterReply = z.object({
  payment: PaymentView,
  /** The secret part of the checkout link: returned once, stored hashed. */
  checkoutToken: z.string(),
  /** True when this answer replays an earlier request with the same Idempotency-Key. */
  replayed: z.boolean(),
});
export type PaymentsRegisterReply = z.infer<typeof PaymentsRegisterReply>;

export const PaymentsGetRequest = MerchantScope.extend({ id: z.string() });
export type PaymentsGetRequest = z.infer<typeof PaymentsGetRequest>;

/** The refund a refund request made or found (its Idempotency-Key's). */
export const RefundView = z.object({
  id: z.uuid(),
  /** Centimes. */
  amount: z.int(),
  /** pending: asked of the card network, its outcome not known yet (HTTP 202). */
  status: z.enum(['pending', 'succeeded']),
});
export type RefundView = z.infer<typeof RefundView>;

/** `data` of the answer to POST /api/v1/payments/{id}/refund: the payment, and the refund. */
export const PaymentsRefundReply = PaymentView.extend({ refund: RefundView });
export type PaymentsRefundReply = z.infer<typeof PaymentsRefundReply>;

export const PaymentsRefundRequest = MerchantScope.extend({
  id: z.string(),
  amount: z.int().positive().optional(),
  idempotency: IdempotencyRequest.optional(),
});
export type PaymentsRefundRequest = z.infer<typeof PaymentsRefundRequest>;

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

/** How deep a JSON value nests (a scalar is 0), without recursion: safe on hostile input. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Whether every key and string of a JSON value can be stored in Postgres jsonb as sent. */
function storableJson(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (!node.isWellFormed() || node.includes('\u0000')) return false;
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, child] of Object.entries(node)) stack.push(key, child);
    }
  }
  return true;
}

/** Ids of payments are UUIDs; anything else names no payment (and never reaches SQL). */
export function isUuid(value: string): boolean {
  return z.uuid().safeParse(value).success;
}
