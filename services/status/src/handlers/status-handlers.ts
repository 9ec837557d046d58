import { Rpc } from '@dzpay/contracts';
import { serveRpc, type Logger, type NatsConnection, type RpcServer } from '@dzpay/platform';
import { revisionsOf, type AttemptsSource } from '../adapters/attempts-cache.ts';
import { statusOf } from '../domain/stage.ts';

/**
 * `status.reference.get`: reads the reference's attempts under the caller's merchant and
 * mode (from memory while unchanged, adapters/attempts-cache.ts) and computes the stage
 * against the clock, on every query, with the attempts' revisions. It only reads, so
 * asking never changes a payment; another merchant's reference has no attempts here and
 * reads as not_found.
 */
export async function serveStatusHandlers(deps: {
  nats: NatsConnection;
  prefix: string;
  attempts: { attemptsOf: AttemptsSource };
  logger: Logger;
  clock?: () => Date;
}): Promise<RpcServer> {
  const { nats, prefix, attempts, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  return serveRpc(
    nats,
    prefix,
    Rpc.statusReferenceGet,
    async ({ merchantId, mode, reference }) => {
      const found = await attempts.attemptsOf({ merchantId, mode }, reference);
      // The revisions let a gateway tell this answer from an older one (docs/status.md).
      return { ...statusOf(reference, found, clock()), revisions: revisionsOf(found) };
    },
    logger,
  );
}
