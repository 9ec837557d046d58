import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../app.ts';

/** The merchants' dashboard under /dashboard (issue 14). */
export async function dashboardRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  void app;
  void deps;
}
