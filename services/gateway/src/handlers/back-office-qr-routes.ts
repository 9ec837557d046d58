import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../app.ts';

/** The merchant API's back-office qr routes (issue 14). */
export function backOfficeQrRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  void app;
  void deps;
}
