import type { MerchantScope, RpcDefinition } from '@dzpay/contracts';
import { requestRpc, type NatsConnection } from '@dzpay/platform';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { authOf } from './authenticate.ts';

/** What a scoped ask adds to the key's merchant and mode. */
type FieldsOf<D extends RpcDefinition> = Omit<z.infer<D['request']>, keyof MerchantScope>;

/**
 * Asks one operation for an authenticated request, scoped to its key's merchant and mode:
 * what most merchant API routes do between reading their input and answering.
 */
export function scopedAsk(
  deps: { nats: NatsConnection; natsPrefix: string },
  timeoutMs: number,
): <D extends RpcDefinition>(
  request: FastifyRequest,
  definition: D,
  fields: FieldsOf<D>,
) => Promise<z.infer<D['reply']>> {
  return <D extends RpcDefinition>(request: FastifyRequest, definition: D, fields: FieldsOf<D>) =>
    requestRpc(
      deps.nats,
      deps.natsPrefix,
      definition,
      // The fields and the scope make the whole request: its schema checks it again.
      { ...authOf(request).scope, ...fields } as z.infer<D['request']>,
      { timeoutMs },
    );
}
