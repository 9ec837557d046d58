import { z } from 'zod';
import { MerchantScope } from './scope.ts';
import { cleanText } from './validation.ts';

/** The field partners branch on (spec: "Stage of a reference"). */
export const Stage = z.enum(['locked', 'paid', 'released', 'refunded', 'not_found']);
export type Stage = z.infer<typeof Stage>;

/** Diagnostics only; the set may grow (spec). */
export const AttemptStatus = z.enum(['pending', 'processing', 'success', 'failed', 'refunded']);

export const WebhookDelivery = z.enum(['success', 'fail', 'pending']);
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** `payment` of the status record: the attempt that decided the stage. */
export const StatusPayment = z.object({
  paymentId: z.string(),
  status: AttemptStatus,
  amount: z.number(),
  currency: z.string(),
  paidAt: z.iso.datetime().nullable(),
  orderId: z.string().nullable(),
  webhookDelivery: WebhookDelivery.nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type StatusPayment = z.infer<typeof StatusPayment>;

/** `data` of GET /partner/payments/v1/{reference}/status. Amounts are DZD (ARCHITECTURE §4). */
export const StatusRecord = z.object({
  reference: z.string(),
  stage: Stage,
  locked: z.boolean(),
  paid: z.boolean(),
  lockReleaseTime: z.iso.datetime().nullable(),
  paymentId: z.string().nullable(),
  channel: z.literal('AGENCY'),
  currency: z.string(),
  amount: z.number().nullable(),
  payment: StatusPayment.nullable(),
});
export type StatusRecord = z.infer<typeof StatusRecord>;

/** The reference rules of the status endpoint: 1 to 255 characters. */
export const StatusReference = z
  .string()
  .min(1, { error: 'reference should not be empty' })
  .max(255, { error: 'reference must be shorter than or equal to 255 characters' })
  // A NUL or a lone surrogate cannot be looked up (Postgres refuses it): a 400, not a 500.
  .refine(cleanText, {
    error: 'reference must not contain control characters or broken Unicode',
  });

export const StatusReferenceRequest = MerchantScope.extend({ reference: StatusReference });
export type StatusReferenceRequest = z.infer<typeof StatusReferenceRequest>;
