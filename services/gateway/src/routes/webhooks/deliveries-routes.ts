import { Rpc, WebhookDeliveriesQuery } from '@dzpay/contracts';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../deps.ts';
import { requireApiKey } from '../shared/authenticate.ts';
import { parseQuery } from '../shared/query-string.ts';
import { scopedAsk } from '../shared/scoped-ask.ts';

/**
 * The merchant API's list of every webhook delivery (GET /api/v1/webhooks/deliveries):
 * newest first, filtered by outcome, event type, payment and Algiers days, each with
 * all its attempts; the key's merchant and mode only.
 */
export function webhookDeliveriesRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const ask = scopedAsk(deps, deps.serviceTimeoutMs);

  app.get('/api/v1/webhooks/deliveries', routeOptions, async (request) => {
    const query = parseQuery(WebhookDeliveriesQuery, request.query);
    const data = await ask(request, Rpc.webhookDeliveriesList, query);
    return { statusCode: 200, message: 'Webhook deliveries', data };
  });
}
