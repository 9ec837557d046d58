import { BaseEnv } from '@dzpay/platform';
import { z } from 'zod';

export const GatewayEnv = BaseEnv.extend({
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9101),
  /** Public HTTP port: the merchant and partner APIs, and later the payer pages. */
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HTTP_HOST: z.string().default('0.0.0.0'),
  /** Trust X-Forwarded-For from this many proxies (the ingress) when reading client IPs. */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
  /** Requests per minute per API key on endpoints whose limit the spec leaves open. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /** The gateway's public base URL: checkout links and the card network's return route. */
  PUBLIC_BASE_URL: z.url().default('http://localhost:8080'),
  /**
   * How long the gateway waits for payments, which waits up to 4 s for a partner and CARDNET_TIMEOUT_MS (6 s)
   * for the card network in turn; shorter than SHUTDOWN_TIMEOUT_MS, so a drain is not cut.
   */
  PAYMENTS_TIMEOUT_MS: z.coerce.number().int().positive().default(12_000),
  /**
   * 32 random bytes, base64: the admin CLI (run from the gateway's image) seals partners'
   * API and signing secrets with it (AES-256-GCM); payments and the dispatcher open them.
   * The gateway itself only publishes them, sealed, to the partner directory.
   */
  SECRETS_KEY: z.string().optional(),
  /** Longest time a gateway trusts a cached key owner without hearing of a change. */
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Longest time a gateway answers a reference's status from memory without hearing of
   * a change (changes are forgotten as Postgres notifies them: adapters/status-cache.ts).
   * 0: every query asks status.
   */
  STATUS_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /** The spec's limit on the payment status endpoint, per key and minute. */
  STATUS_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(60),
  /**
   * How many gateway replicas run (the Deployment's replica count). While Redis is
   * unreachable each replica counts the rate limits in memory and allows its share,
   * limit ÷ replicas rounded up, so the fleet keeps about the limit.
   */
  GATEWAY_REPLICAS: z.coerce.number().int().positive().default(1),
  /** How long the gateway waits for a backing service before answering 503. */
  SERVICE_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /**
   * How long the gateway waits for receipts, which asks payments (up to 5 s) and then the
   * mail server (SMTP_TIMEOUT_MS, 5 s); shorter than SHUTDOWN_TIMEOUT_MS.
   */
  RECEIPTS_TIMEOUT_MS: z.coerce.number().int().positive().default(12_000),
});
export type GatewayEnv = z.infer<typeof GatewayEnv>;
