import { Rpc } from '@dzpay/contracts';
import { requestRpc, type NatsConnection } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import type { KeyOwnerLookup } from '../adapters/key-owner-cache.ts';
import { authOf, requireApiKey } from './authenticate.ts';

export interface WebhookRoutesDeps {
  keys: KeyOwnerLookup;
  nats: NatsConnection;
  natsPrefix: string;
  serviceTimeoutMs: number;
}

/** What merchants see of the webhooks dzpay sent their partner server, and a replay. */
export function webhookRoutes(app: FastifyInstance, deps: WebhookRoutesDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const ask = { timeoutMs: deps.serviceTimeoutMs };

  app.get<{ Params: { id: string } }>(
    '/api/v1/payments/:id/webhooks',
    routeOptions,
    async (request) => {
      const { scope } = authOf(request);
      const data = await requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.deliveriesOfPayment,
        { ...scope, paymentId: request.params.id },
        ask,
      );
      return { statusCode: 200, message: 'Webhook deliveries', data };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api/v1/webhooks/deliveries/:id/replay',
    routeOptions,
    async (request) => {
      const { scope } = authOf(request);
      const data = await requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.deliveryReplay,
        { ...scope, deliveryId: request.params.id },
        ask,
      );
      return { statusCode: 200, message: 'Webhook delivery scheduled again', data };
    },
  );
}
