import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps.ts';

/** The merchant API's balance and payouts (/api/v1/balance, /api/v1/payouts). */
export function balanceRoutes(_app: FastifyInstance, _deps: GatewayDeps): void {}
