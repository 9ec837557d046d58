import type { HttpLimits, NatsConnection, Redis } from '@dzpay/platform';
import type { AccountsRepository } from '@dzpay/accounts';
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { KeyOwnerLookup } from './adapters/key-owner-cache.ts';
import type { StatusLookup } from './adapters/status-cache.ts';

/** What the gateway's routes run on: wired in service.ts, stood in for by tests. */
export interface GatewayDeps {
  logger: FastifyBaseLogger;
  keys: KeyOwnerLookup;
  accounts: AccountsRepository;
  /** Status records remembered between changes; without it, every query asks status. */
  statuses?: StatusLookup;
  nats: NatsConnection;
  natsPrefix: string;
  redis: Redis;
  registry: Registry;
  rateLimitPerMinute: number;
  serviceTimeoutMs: number;
  paymentsTimeoutMs: number;
  receiptsTimeoutMs: number;
  publicBaseUrl: string;
  statusRateLimitPerMinute: number;
  /** Gateway replicas sharing the rate limits: each counts its share while Redis is down. */
  replicas: number;
  trustProxyHops: number;
  /**
   * SECRETS_KEY: seals the webhook signing secrets the merchant API and the dashboard
   * make. Absent: neither can make one (503).
   */
  secretsKey?: Buffer;
  clock?: () => Date;
  /** How long requests may take to arrive: the platform's HTTP_LIMITS unless a test says. */
  httpLimits?: HttpLimits;
}
