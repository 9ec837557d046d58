import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps.ts';

/** The merchant API's list of every webhook delivery (GET /api/v1/webhooks/deliveries). */
export function webhookDeliveriesRoutes(_app: FastifyInstance, _deps: GatewayDeps): void {}
