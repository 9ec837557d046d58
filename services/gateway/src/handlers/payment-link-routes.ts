import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps.ts';

/** The merchant API's payment links (/api/v1/payment-links) and their hosted pages. */
export function paymentLinkRoutes(_app: FastifyInstance, _deps: GatewayDeps): void {}
