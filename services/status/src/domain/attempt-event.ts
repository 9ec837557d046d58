import type { PaymentEvent } from '@dzpay/contracts';
import type { Attempt } from './stage.ts';

/** What one event says about its attempt, ready to be written over an older state. */
export interface AttemptUpdate extends Omit<Attempt, 'webhookDelivery'> {
  merchantId: string;
  mode: PaymentEvent['mode'];
  reference: string;
  /** Products and QR tokens are separate namespaces; events written before kinds are products. */
  referenceKind: 'product' | 'qr';
  /** The payment's version this state had (`data.version`); null in events written before. */
  paymentVersion: number | null;
}

/** Where a state of an attempt stands: its payment's version, if told, and its stream sequence. */
export interface StatePosition {
  paymentVersion: number | null;
  streamSeq: number;
}

/**
 * Whether `incoming` is a newer state of its attempt than `held`. The stream may hold a
 * payment's events out of commit order (the relay publishes by transaction start), so
 * when both carry their payment's version, the version decides: a lower one is an older
 * state, an equal one the same state told again. Without both, the stream order does, as
 * it did before events carried versions. upsertAttempts (status-repository.ts) applies
 * the same rule in SQL.
 */
export function isNewerState(incoming: StatePosition, held: StatePosition): boolean {
  if (incoming.paymentVersion !== null && held.paymentVersion !== null) {
    return incoming.paymentVersion > held.paymentVersion;
  }
  return incoming.streamSeq > held.streamSeq;
}

/**
 * The attempt state an event carries, or null for events that build no attempt: only
 * product-reference (AGENCY) payments have a status record; hosted-checkout payments
 * are read through the payments API instead.
 *
 * Each event carries the whole attempt, so the newest event alone gives its state.
 * `lockExpiresAt` null means the card network holds the order: the lock is held
 * without expiry. An AGENCY event without the field is read the same way, because
 * calling a reference free while it may be paid is the one mistake a partner cannot undo.
 */
export function attemptUpdateOf(event: PaymentEvent): AttemptUpdate | null {
  const { data } = event;
  if (data.channel !== 'AGENCY') return null;
  const lockExpiresAt = data.lockExpiresAt ? new Date(data.lockExpiresAt) : null;
  // An attempt that holds nothing (a multi-use QR code) is in flight but never locked:
  // "has an expiry, and none is set" reads as not held.
  const holdsNothing = data.locksReference === false;
  return {
    paymentId: data.paymentId,
    merchantId: event.merchantId,
    mode: event.mode,
    reference: data.reference,
    referenceKind: data.referenceKind === 'qr' ? 'qr' : 'product',
    locksReference: !holdsNothing,
    status: data.status,
    amount: data.amount,
    currency: data.currency,
    orderId: data.orderId,
    paidAt: data.paidAt ? new Date(data.paidAt) : null,
    lockExpiresAt: holdsNothing ? null : lockExpiresAt,
    lockHasExpiry: holdsNothing || lockExpiresAt !== null,
    createdAt: new Date(data.createdAt ?? event.occurredAt),
    updatedAt: new Date(event.occurredAt),
    paymentVersion: data.version ?? null,
  };
}
