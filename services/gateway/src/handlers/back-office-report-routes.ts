import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../app.ts';

/** The merchant API's daily report route (issue 14). */
export function backOfficeReportRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  void app;
  void deps;
}
