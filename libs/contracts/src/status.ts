import { z } from 'zod';
import { PaymentEvent } from './events.ts';
import { MerchantScope } from './scope.ts';
import { cleanText } from './validation.ts';

/** The field partners branch on (spec: "Stage of a reference"). */
export const Stage = z.enum(['locked', 'paid', 'released', 'refunded', 'not_found']);
export type Stage = z.infer<typeof Stage>;

/** Diagnostics only; the set may grow (spec). */
const AttemptStatus = z.enum(['pending', 'processing', 'success', 'failed', 'refunded']);

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

/**
 * The revision of each attempt (by payment id) a status answer was computed from. Status
 * counts each attempt row's changes; the notification of a change names the revision it
 * reached (STATUS_CHANGED_CHANNEL), so whoever remembers answers can refuse one older than
 * a change it was already told of.
 */
export const AttemptRevisions = z.record(z.string(), z.int().positive());
export type AttemptRevisions = z.infer<typeof AttemptRevisions>;

/**
 * What `status.reference.get` answers: the status record, and the revisions it reflects
 * for the gateway's memory. `revisions` is never shown to partners (statusRecordOf);
 * absent from a status that predates it, and such an answer covers no change.
 */
export const StatusReply = StatusRecord.extend({ revisions: AttemptRevisions.optional() });
export type StatusReply = z.infer<typeof StatusReply>;

/** The spec's record of a reply, without what only dzpay reads. */
export function statusRecordOf(reply: StatusReply): StatusRecord {
  const record = { ...reply };
  delete record.revisions;
  return record;
}

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

/** A product reference of one merchant and mode: what a status answer is about. */
export interface StatusSubject extends MerchantScope {
  reference: string;
}

/**
 * The Postgres notification status's trigger sends at each commit that changes a
 * product reference's attempts (services/status, migrations 005 and 006). Whoever
 * remembers a status (the status replicas, the gateways) forgets that reference when it
 * arrives, and stores no answer older than the attempt's revision it names.
 */
export const STATUS_CHANGED_CHANNEL = 'dzpay_status_changed';

/** The key of a reference's status: JSON, so no reference can forge another's key. */
export function statusKey({ merchantId, mode, reference }: StatusSubject): string {
  return JSON.stringify([merchantId, mode, reference]);
}

/** An attempt (by payment id) and the revision a change made its row reach. */
interface AttemptRevision {
  paymentId: string;
  revision: number;
}

/** A changed reference, and which attempt changed to which revision when that is known. */
export interface StatusChange extends StatusSubject {
  attempt?: AttemptRevision;
}

/**
 * The change a STATUS_CHANGED_CHANNEL payload tells of (the trigger writes the JSON array
 * [merchantId, mode, reference, paymentId, revision]; the reference alone for a deleted
 * attempt, and before revisions), or null when it cannot be read.
 */
export function statusChangeOf(payload: string): StatusChange | null {
  try {
    const [merchantId, mode, reference, paymentId, revision] = JSON.parse(payload) as unknown[];
    const scope = MerchantScope.safeParse({ merchantId, mode });
    if (!scope.success || typeof reference !== 'string') return null;
    const subject = { ...scope.data, reference };
    if (paymentId === undefined && revision === undefined) return subject;
    if (typeof paymentId !== 'string' || !Number.isSafeInteger(revision)) return null;
    return { ...subject, attempt: { paymentId, revision: revision as number } };
  } catch {
    return null;
  }
}

/**
 * A status record as of `now`: the only part of it that moves with the clock is the
 * lock's end, shown while it is ahead (null once past: the reference stays locked until
 * settlement decides). Lets a record computed earlier be answered later, exactly.
 */
export function statusAsOf(record: StatusRecord, now: Date): StatusRecord {
  const ends = record.lockReleaseTime;
  return ends !== null && Date.parse(ends) <= now.getTime()
    ? { ...record, lockReleaseTime: null }
    : record;
}

/**
 * `payments.reference.held`: every attempt of the product reference that is in flight
 * (it may still succeed) or succeeded, each as the event of its current state would
 * tell it (`occurredAt` its last change), read from payments' rows at the moment of the
 * question. Status asks before it calls a reference free (`not_found`, `released`,
 * `refunded`), so an attempt whose events the stream has not carried yet is never
 * missed (docs/status.md, "Free only when payments agrees").
 */
export const ReferenceHeldReply = z.object({ attempts: z.array(PaymentEvent) });
export type ReferenceHeldReply = z.infer<typeof ReferenceHeldReply>;
