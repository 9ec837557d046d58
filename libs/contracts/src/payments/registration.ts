import { z } from 'zod';
import { refusingBidiControls } from '../bidi-controls.ts';
import { MerchantScope } from '../scope.ts';
import { cleanText } from '../validation.ts';
import { IdempotencyRequest, Language, PaymentBasics, PaymentView } from './payment.ts';

/**
 * A payment registered: `POST /api/v1/payments`, the rules its body is checked by, and
 * the NATS request that carries it with the merchant's terms to payments.
 */

/** metadata is refused above this many bytes of JSON (VALIDATION422_UNPROCESSABLE_ENTITY). */
export const MAX_METADATA_BYTES = 4096;
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
    // Shown to merchants and accountants (dashboard, exports, receipts): nothing in it may
    // reorder what they read.
    reference: refusingBidiControls(
      z
        .string({ error: 'reference must be a string' })
        .min(1, { error: 'reference should not be empty' })
        .max(255, { error: 'reference must be at most 255 characters' })
        .refine(cleanText, {
          error: 'reference must not contain control characters or broken Unicode',
        }),
      'reference',
    ),
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

/**
 * Metadata as a payment keeps it (and a payment link, which hands it to its payments):
 * a JSON object whose keys and strings Postgres stores as sent. Its size
 * (MAX_METADATA_BYTES) and depth (MAX_METADATA_DEPTH) are checked apart, each with its
 * own answer.
 */
export const PaymentMetadata = z
  .record(z.string(), z.json(), { error: 'metadata must be a JSON object' })
  .refine(storableJson, { error: 'metadata must not contain NUL characters or broken Unicode' });

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
