import { Rpc } from '@dzpay/contracts';
import { serveRpc, type Logger, type NatsConnection, type RpcServer } from '@dzpay/platform';
import { revisionsOf, type AttemptsSource } from '../adapters/attempts-cache.ts';
import type { HeldAttempts } from '../adapters/payments-held.ts';
import type { AttemptUpdate } from '../domain/attempt-event.ts';
import { asksPayments, fromRowsIds, heldAhead, withHeldAttempts } from '../domain/held.ts';
import { statusOf } from '../domain/stage.ts';

/**
 * `status.reference.get`: reads the reference's attempts under the caller's merchant and
 * mode (from memory while unchanged, adapters/attempts-cache.ts) and computes the stage
 * against the clock, on every query, with the attempts' revisions. A stage that calls
 * the reference free is said only once payments' own rows agree (`heldAttempts`): the
 * projection may lag them. A state of payments' rows the projection lacks is written
 * into it (`recordHeld`) before the answer computed from it goes out: the stream may bring
 * that attempt's older states afterwards, and a reference told `paid` must never read
 * `locked` again from the projection. Asking never changes a payment; another merchant's
 * reference has no attempts here and reads as not_found.
 */
export async function serveStatusHandlers(deps: {
  nats: NatsConnection;
  prefix: string;
  attempts: { attemptsOf: AttemptsSource };
  heldAttempts: HeldAttempts;
  /** Writes states read from payments' rows into the projection (StatusRepository.recordHeld). */
  recordHeld: (updates: readonly AttemptUpdate[]) => Promise<void>;
  logger: Logger;
  clock?: () => Date;
}): Promise<RpcServer> {
  const { nats, prefix, attempts, heldAttempts, recordHeld, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  return serveRpc(
    nats,
    prefix,
    Rpc.statusReferenceGet,
    async ({ merchantId, mode, reference }) => {
      const projected = await attempts.attemptsOf({ merchantId, mode }, reference);
      let found = projected;
      let status = statusOf(reference, found, clock());
      if (asksPayments(status.stage, projected)) {
        const paymentIds = fromRowsIds(projected);
        const rows = await heldAttempts({
          merchantId,
          mode,
          reference,
          ...(paymentIds.length > 0 ? { paymentIds } : {}),
        });
        const ahead = heldAhead(projected, rows);
        // Ahead of the projection: in it before anyone is told (a failed write fails the
        // answer, 503 while the database is away, rather than a stage it could take back).
        if (ahead.length > 0) await recordHeld(ahead);
        found = withHeldAttempts(projected, ahead);
        status = statusOf(reference, found, clock());
      }
      // The revisions let a gateway tell this answer from an older one (docs/status.md).
      return { ...status, revisions: revisionsOf(found) };
    },
    logger,
  );
}
