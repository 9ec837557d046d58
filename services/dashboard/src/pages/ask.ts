import { Rpc, type RpcDefinition } from '@dzpay/contracts';
import { requestRpc } from '@dzpay/platform';
import type { z } from 'zod';
import type { DashboardDeps } from '../settings.ts';

/**
 * One NATS operation of the catalog, asked on behalf of a page. Pages take this function
 * rather than the connection, so their unit tests answer with plain objects.
 */
export type Ask = <D extends RpcDefinition>(
  definition: D,
  request: z.infer<D['request']>,
) => Promise<z.infer<D['reply']>>;

/** Operations that wait for the card network or the mail server get the API's longer timeouts. */
function timeoutOf(deps: DashboardDeps, definition: RpcDefinition): number {
  if (definition === Rpc.paymentsRefund || definition === Rpc.paymentsCancel)
    return deps.paymentsTimeoutMs;
  if (definition === Rpc.receiptEmailSend) return deps.receiptsTimeoutMs;
  return deps.serviceTimeoutMs;
}

/** The real thing: requestRpc over the gateway's connection, with the API's timeouts. */
export function askOver(deps: DashboardDeps): Ask {
  return (definition, request) =>
    requestRpc(deps.nats, deps.natsPrefix, definition, request, {
      timeoutMs: timeoutOf(deps, definition),
    });
}
