import type { Stage } from '@dzpay/contracts';
import type { StoredAttempt } from '../adapters/attempts-cache.ts';
import type { AttemptUpdate } from './attempt-event.ts';

/**
 * The stages that tell a partner the reference is free to sell. The projection follows
 * the PAYMENTS stream, which may lag payments' rows by seconds (its leader lost, the
 * relay waiting): an attempt opened meanwhile is missing from it. So before one of these
 * is answered, payments is asked which attempts hold the reference in its own rows.
 */
const FREE_STAGES: ReadonlySet<Stage> = new Set(['not_found', 'released', 'refunded']);

export function callsFree(stage: Stage): boolean {
  return FREE_STAGES.has(stage);
}

/**
 * Whether payments is asked before this answer: a stage that calls the reference free,
 * or one resting on states taken from payments' rows that the stream has not brought yet
 * (`fromRows`): payments may have moved them on (paid, declined) unseen by the
 * projection, and only its rows say where they are now.
 */
export function asksPayments(stage: Stage, attempts: readonly StoredAttempt[]): boolean {
  return callsFree(stage) || attempts.some((attempt) => attempt.fromRows);
}

/** The attempts whose states came from payments' rows: their current states are asked too. */
export function fromRowsIds(attempts: readonly StoredAttempt[]): string[] {
  return attempts.filter((attempt) => attempt.fromRows).map((attempt) => attempt.paymentId);
}

/**
 * The projection's attempts with payments' word on those that hold the reference
 * (in flight or paid, read from its rows): an attempt the projection lacks is added,
 * one it holds in an older state (a lower payment version, or no version to compare)
 * is replaced, keeping what only the projection knows (the webhook's delivery). A held
 * state enters with revision 0: it reflects no row of the projection.
 */
export function withHeldAttempts(
  projected: readonly StoredAttempt[],
  held: readonly AttemptUpdate[],
): StoredAttempt[] {
  const byId = new Map(projected.map((attempt) => [attempt.paymentId, attempt]));
  for (const update of heldAhead(projected, held)) {
    const known = byId.get(update.paymentId);
    byId.set(update.paymentId, {
      paymentId: update.paymentId,
      status: update.status,
      amount: update.amount,
      currency: update.currency,
      orderId: update.orderId,
      paidAt: update.paidAt,
      locksReference: update.locksReference,
      lockExpiresAt: update.lockExpiresAt,
      lockHasExpiry: update.lockHasExpiry,
      webhookDelivery: known?.webhookDelivery ?? null,
      createdAt: update.createdAt,
      updatedAt: update.updatedAt,
      revision: 0,
      paymentVersion: update.paymentVersion,
      fromRows: true,
    });
  }
  return [...byId.values()];
}

/**
 * The states of payments' rows that withHeldAttempts takes: those of attempts the
 * projection lacks or holds in an older state. An answer computed from them is ahead of
 * the projection, so they are written into it before the answer goes out
 * (StatusRepository.recordHeld): the stream may bring the attempt's older states later
 * (its leader lost, the relay publishing its outbox a piece at a time), and a partner
 * told `paid` from payments' rows must not read `locked` from the projection after.
 */
export function heldAhead(
  projected: readonly StoredAttempt[],
  held: readonly AttemptUpdate[],
): AttemptUpdate[] {
  const byId = new Map(projected.map((attempt) => [attempt.paymentId, attempt]));
  return held.filter((update) => {
    const known = byId.get(update.paymentId);
    return !known || !isAtLeastAsNew(known, update);
  });
}

/**
 * Whether the projection's state is no older than payments' row. Payments' row, read
 * after the projection, is the newest committed state unless a change committed in
 * between (then the projection may carry the higher version); without versions on both
 * sides, the row is taken.
 */
function isAtLeastAsNew(known: StoredAttempt, update: AttemptUpdate): boolean {
  if (known.paymentVersion === null || update.paymentVersion === null) return false;
  return known.paymentVersion >= update.paymentVersion;
}
