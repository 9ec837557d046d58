import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps.ts';

/** The merchant API's audit log (/api/v1/audit-events). */
export function auditRoutes(_app: FastifyInstance, _deps: GatewayDeps): void {}
