import type { FastifyInstance } from 'fastify';
import type { DashboardDeps } from './settings.ts';

/** A forgotten password: asking for a link by email, and the link's page (no session). */
export function passwordResetPages(_app: FastifyInstance, _dash: DashboardDeps): void {}
