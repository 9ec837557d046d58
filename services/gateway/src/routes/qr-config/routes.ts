import { parseSetQrConfig, Rpc } from '@dzpay/contracts';
import { requestRpc, type NatsConnection } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import type { KeyOwnerLookup } from '../../adapters/key-owner-cache.ts';
import { parseUnsetQrConfig } from '../../domain/qr-config-request.ts';
import { authOf, requireApiKey } from '../shared/authenticate.ts';
import { ValidationFailure } from '../shared/errors.ts';

export interface QrConfigRoutesDeps {
  keys: KeyOwnerLookup;
  nats: NatsConnection;
  natsPrefix: string;
  serviceTimeoutMs: number;
  clock: () => Date;
}

/**
 * POST /set-qr-config and POST /un-set-qr-config, to the letter of the spec.
 */
export function qrConfigRoutes(app: FastifyInstance, deps: QrConfigRoutesDeps): void {
  const routeOptions = {
    config: { envelope: 'validation-list' as const },
    preParsing: requireApiKey(app, deps.keys),
  };
  const rpcOptions = { timeoutMs: deps.serviceTimeoutMs };

  app.post('/set-qr-config', routeOptions, async (request) => {
    const { scope, merchant } = authOf(request);
    const parsed = parseSetQrConfig(request.body, deps.clock(), merchant);
    if (!parsed.ok) throw new ValidationFailure(parsed.error);
    await requestRpc(
      deps.nats,
      deps.natsPrefix,
      Rpc.qrConfigSet,
      { ...scope, ...parsed.value },
      rpcOptions,
    );
    return { statusCode: 200, message: 'QR configuration set successfully' };
  });

  app.post('/un-set-qr-config', routeOptions, async (request, reply) => {
    const { scope } = authOf(request);
    const parsed = parseUnsetQrConfig(request.body);
    if (!parsed.ok) throw new ValidationFailure(parsed.error);
    await requestRpc(
      deps.nats,
      deps.natsPrefix,
      Rpc.qrConfigUnset,
      { ...scope, ...parsed.value },
      rpcOptions,
    );
    return reply.code(204).send();
  });
}
