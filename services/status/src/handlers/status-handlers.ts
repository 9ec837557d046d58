import { Rpc } from '@dzpay/contracts';
import { serveRpc, type Logger, type NatsConnection, type RpcServer } from '@dzpay/platform';
import { revisionsOf, type AttemptsSource } from '../adapters/attempts-cache.ts';
import type { HeldAttempts } from '../adapters/payments-held.ts';
import { callsFree, withHeldAttempts } from '../domain/held.ts';
import { statusOf } from '../domain/stage.ts';

/**
 * `status.reference.get`: reads the reference's attempts under the caller's merchant and
 * mode (from memory while unchanged, adapters/attempts-cache.ts) and computes the stage
 * against the clock, on every query, with the attempts' revisions. A stage that calls
 * the reference free is said only once payments' own rows agree (`heldAttempts`): the
 * projection may lag them. It only reads, so asking never changes a payment; another
 * merchant's reference has no attempts here and reads as not_found.
 */
export async function serveStatusHandlers(deps: {
  nats: NatsConnection;
  prefix: string;
  attempts: { attemptsOf: AttemptsSource };
  heldAttempts: HeldAttempts;
  logger: Logger;
  clock?: () => Date;
}): Promise<RpcServer> {
  const { nats, prefix, attempts, heldAttempts, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  return serveRpc(
    nats,
    prefix,
    Rpc.statusReferenceGet,
    async ({ merchantId, mode, reference }) => {
      const projected = await attempts.attemptsOf({ merchantId, mode }, reference);
      let found = projected;
      let status = statusOf(reference, found, clock());
      if (callsFree(status.stage)) {
        found = withHeldAttempts(projected, await heldAttempts({ merchantId, mode, reference }));
        status = statusOf(reference, found, clock());
      }
      // The revisions let a gateway tell this answer from an older one (docs/status.md).
      return { ...status, revisions: revisionsOf(found) };
    },
    logger,
  );
}
