import { centimesToDzd } from '@dzpay/contracts';
import type { Stage, StatusPayment, StatusRecord } from '@dzpay/contracts';

/** One product-reference attempt as the projection holds it (amount in centimes). */
export interface Attempt {
  paymentId: string;
  status: StatusPayment['status'];
  amount: number;
  currency: string;
  orderId: string | null;
  paidAt: Date | null;
  /** When the lock on the reference ends; null with lockHasExpiry false = held, no expiry. */
  lockExpiresAt: Date | null;
  lockHasExpiry: boolean;
  webhookDelivery: StatusPayment['webhookDelivery'];
  createdAt: Date;
  updatedAt: Date;
}

const IN_FLIGHT = new Set<Attempt['status']>(['pending', 'processing']);

/** Whether the attempt holds the reference at `now`; an expired lock is released at once. */
function holdsLock(attempt: Attempt, now: Date): boolean {
  if (!IN_FLIGHT.has(attempt.status)) return false;
  if (!attempt.lockHasExpiry) return true;
  return attempt.lockExpiresAt !== null && attempt.lockExpiresAt.getTime() > now.getTime();
}

/**
 * The stage of a reference from all its attempts (ARCHITECTURE §4), first match wins:
 * paid, locked, refunded, released, not_found. Computed against `now`, so a lock reads
 * as released the moment it expires, before any sweeper has run.
 */
export function statusOf(reference: string, attempts: readonly Attempt[], now: Date): StatusRecord {
  const newestFirst = [...attempts].sort(newerFirst);
  const paid = newestFirst.find((attempt) => attempt.status === 'success');
  if (paid) return record(reference, 'paid', paid);

  const holding = newestFirst.find((attempt) => holdsLock(attempt, now));
  if (holding) return record(reference, 'locked', holding);

  // "Decided" means final; success was ruled out above, so this is failed or refunded.
  const decided = newestFirst.find((attempt) => !IN_FLIGHT.has(attempt.status));
  if (decided?.status === 'refunded') return record(reference, 'refunded', decided);

  const latest = newestFirst[0];
  if (latest) return record(reference, 'released', latest);

  return {
    reference,
    stage: 'not_found',
    locked: false,
    paid: false,
    lockReleaseTime: null,
    paymentId: null,
    channel: 'AGENCY',
    currency: 'DZD',
    amount: null,
    payment: null,
  };
}

function record(reference: string, stage: Stage, attempt: Attempt): StatusRecord {
  return {
    reference,
    stage,
    locked: stage === 'locked',
    paid: stage === 'paid',
    lockReleaseTime: stage === 'locked' ? (attempt.lockExpiresAt?.toISOString() ?? null) : null,
    paymentId: attempt.paymentId,
    channel: 'AGENCY',
    currency: attempt.currency,
    amount: centimesToDzd(attempt.amount),
    payment: {
      paymentId: attempt.paymentId,
      status: attempt.status,
      amount: centimesToDzd(attempt.amount),
      currency: attempt.currency,
      paidAt: attempt.paidAt?.toISOString() ?? null,
      orderId: attempt.orderId,
      webhookDelivery: attempt.webhookDelivery,
      createdAt: attempt.createdAt.toISOString(),
      updatedAt: attempt.updatedAt.toISOString(),
    },
  };
}

/** Latest attempt first; the payment id breaks ties so the answer never flickers. */
function newerFirst(a: Attempt, b: Attempt): number {
  const byCreation = b.createdAt.getTime() - a.createdAt.getTime();
  if (byCreation !== 0) return byCreation;
  return a.paymentId < b.paymentId ? 1 : a.paymentId > b.paymentId ? -1 : 0;
}
