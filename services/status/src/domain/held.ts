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
  for (const update of held) {
    const known = byId.get(update.paymentId);
    if (known && isAtLeastAsNew(known, update)) continue;
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
    });
  }
  return [...byId.values()];
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
