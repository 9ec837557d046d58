import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../app.ts';

/** The merchant API's back-office webhooks routes (issue 14). */
export function backOfficeWebhooksRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  void app;
  void deps;
}
