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
  /** Whether the attempt holds its reference while in flight (a multi-use QR code does not). */
  locksReference: boolean;
  /** When the lock on the reference ends; null with lockHasExpiry false = held, no expiry. */
  lockExpiresAt: Date | null;
  lockHasExpiry: boolean;
  webhookDelivery: StatusPayment['webhookDelivery'];
  createdAt: Date;
  updatedAt: Date;
}

const IN_FLIGHT = new Set<Attempt['status']>(['pending', 'processing']);

/**
 * Whether the attempt holds the reference: every in-flight attempt that locks does, until
 * it is decided. One whose lock time has passed may still succeed (the card was paid in
 * time, its verdict not asked yet), so it is not called released before settlement has
 * asked the card network: a partner told "safe to release" is never told "paid" after.
 */
function holdsLock(attempt: Attempt): boolean {
  return IN_FLIGHT.has(attempt.status) && attempt.locksReference;
}

/** The lock's end while it is ahead; null once past (held until decided) or without one. */
function lockReleaseTimeOf(attempt: Attempt, now: Date): string | null {
  const ends = attempt.lockHasExpiry ? attempt.lockExpiresAt : null;
  return ends && ends.getTime() > now.getTime() ? ends.toISOString() : null;
}

/**
 * The stage of a reference from all its attempts (ARCHITECTURE §4), first match wins:
 * paid, locked, refunded, released, not_found. `now` only decides whether a lock's end
 * is still ahead (lockReleaseTime).
 */
export function statusOf(reference: string, attempts: readonly Attempt[], now: Date): StatusRecord {
  const newestFirst = [...attempts].sort(newerFirst);
  const paid = newestFirst.find((attempt) => attempt.status === 'success');
  if (paid) return record(reference, 'paid', paid, null);

  const holding = newestFirst.find(holdsLock);
  if (holding) return record(reference, 'locked', holding, lockReleaseTimeOf(holding, now));

  // "Decided" means final; success was ruled out above, so this is failed or refunded.
  const decided = newestFirst.find((attempt) => !IN_FLIGHT.has(attempt.status));
  if (decided?.status === 'refunded') return record(reference, 'refunded', decided, null);

  const latest = newestFirst[0];
  if (latest) return record(reference, 'released', latest, null);

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

function record(
  reference: string,
  stage: Stage,
  attempt: Attempt,
  lockReleaseTime: string | null,
): StatusRecord {
  return {
    reference,
    stage,
    locked: stage === 'locked',
    paid: stage === 'paid',
    lockReleaseTime,
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
