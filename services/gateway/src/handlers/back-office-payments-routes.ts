import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../app.ts';

/** The merchant API's back-office payments routes (issue 14). */
export function backOfficePaymentsRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  void app;
  void deps;
}
