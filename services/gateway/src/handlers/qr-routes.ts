import { Rpc, type MerchantScope } from '@dzpay/contracts';
import { AppError, requestRpc, type NatsConnection } from '@dzpay/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { KeyOwnerLookup } from '../adapters/key-owner-cache.ts';
import { parseSetQrConfig, parseUnsetQrConfig } from '../domain/qr-request.ts';
import { authenticate } from './authenticate.ts';
import { ValidationFailure } from './errors.ts';

export interface QrRoutesDeps {
  keys: KeyOwnerLookup;
  nats: NatsConnection;
  natsPrefix: string;
  serviceTimeoutMs: number;
  clock: () => Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The merchant and mode of the request's API key, set before the body is read. */
    merchantScope: MerchantScope | null;
  }
}

/**
 * POST /set-qr-config and POST /un-set-qr-config, to the letter of the spec. The key
 * is checked before the body, so a caller without a valid key learns nothing about
 * which bodies would pass.
 */
export function qrRoutes(app: FastifyInstance, deps: QrRoutesDeps): void {
  app.decorateRequest('merchantScope', null);

  // preParsing: after the rate limiter (onRequest), so key guessing is limited too, and
  // before the body is parsed, so a caller without a valid key gets its 401 even when
  // its body is malformed.
  const requireKey = async (request: FastifyRequest): Promise<void> => {
    const { scope, merchantActive } = await authenticate(
      request,
      deps.keys,
      'AUTH401_UNAUTHORIZED_ACCESS',
    );
    // The QR endpoints know only 401: an inactive merchant's key no longer grants access.
    if (!merchantActive)
      throw new AppError('AUTH401_UNAUTHORIZED_ACCESS', 'merchant account is not active');
    request.merchantScope = scope;
  };
  const routeOptions = { config: { envelope: 'validation-list' as const }, preParsing: requireKey };
  const scopeOf = (request: FastifyRequest): MerchantScope => {
    if (!request.merchantScope) throw new Error('route without requireKey');
    return request.merchantScope;
  };
  const rpcOptions = { timeoutMs: deps.serviceTimeoutMs };

  app.post('/set-qr-config', routeOptions, async (request) => {
    const scope = scopeOf(request);
    const parsed = parseSetQrConfig(request.body, deps.clock());
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
    const scope = scopeOf(request);
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
