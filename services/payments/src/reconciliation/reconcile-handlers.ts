import { Rpc } from '@dzpay/contracts';
import { AppError, serveRpc, type RpcServer } from '@dzpay/platform';
import type { Reconciler } from './reconciler.ts';
import type { ServedContext } from '../context.ts';

/** Discrepancies listed in a reply, about 400 bytes each. */
const MAX_LISTED = 1_000;

/**
 * payments.reconcile: a reconciliation now, over the window asked (the admin CLI's
 * `pnpm dzpay reconcile --since 2d`), answered with its report.
 */
export async function serveReconcileHandler(
  ctx: Pick<ServedContext, 'nats' | 'prefix' | 'logger' | 'clock'>,
  reconciler: Reconciler,
): Promise<RpcServer> {
  const { nats, prefix, logger, clock } = ctx;
  return serveRpc(
    nats,
    prefix,
    Rpc.paymentsReconcile,
    async (request) => {
      const now = clock();
      const since =
        'since' in request ? new Date(request.since) : new Date(now.getTime() - request.windowMs);
      if (since >= now) {
        throw new AppError('VALIDATION422_UNPROCESSABLE_ENTITY', 'since must be in the past');
      }
      const report = await reconciler.run(since);
      // A NATS message holds 1 MB: a run that finds thousands (a network that lost its
      // orders) lists the first ones; the counts, the logs and the metric have them all.
      const listed = report.discrepancies.slice(0, MAX_LISTED);
      return {
        ...report,
        discrepancies: listed,
        omitted: report.discrepancies.length - listed.length,
      };
    },
    logger,
  );
}
