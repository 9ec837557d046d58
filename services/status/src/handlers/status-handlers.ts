import { Rpc } from '@dzpay/contracts';
import { serveRpc, type Logger, type NatsConnection, type RpcServer } from '@dzpay/platform';
import type { StatusRepository } from '../adapters/status-repository.ts';
import { statusOf } from '../domain/stage.ts';

/**
 * `status.reference.get`: reads the reference's attempts under the caller's merchant and
 * mode and computes the stage against the clock. It only reads, so asking never changes
 * a payment; another merchant's reference has no attempts here and reads as not_found.
 */
export async function serveStatusHandlers(deps: {
  nats: NatsConnection;
  prefix: string;
  repository: StatusRepository;
  logger: Logger;
  clock?: () => Date;
}): Promise<RpcServer> {
  const { nats, prefix, repository, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  return serveRpc(
    nats,
    prefix,
    Rpc.statusReferenceGet,
    async ({ merchantId, mode, reference }) => {
      const attempts = await repository.attemptsOf({ merchantId, mode }, reference);
      return statusOf(reference, attempts, clock());
    },
    logger,
  );
}
