import {
  onStatusChanges,
  secretsKey,
  startRuntime,
  type HttpLimits,
  type Runtime,
} from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import { accountsRepository } from '@dzpay/accounts';
import { keyOwnerCache, onAccountChanges } from './adapters/key-owner-cache.ts';
import { statusCache } from './adapters/status-cache.ts';
import { keyUseRecorder } from './adapters/key-use-recorder.ts';
import { partnerDirectory } from './adapters/partner-directory.ts';
import { buildGatewayApp } from './app.ts';
import { GatewayEnv } from './config.ts';
import { runtimeSchemaOf } from '@dzpay/stack';

/** How often a gateway writes down that a key is still in use: "last used" is this exact. */
const KEY_USE_INTERVAL_MS = 60_000;

export interface Gateway {
  runtime: Runtime<GatewayEnv>;
  app: FastifyInstance;
  /** The public base URL the gateway listens on. */
  url: string;
}

/** Wires the gateway: runtime, accounts, the public HTTP app; shutdown closes HTTP first. */
export async function startGateway(
  env: Record<string, string | undefined>,
  options: {
    handleSignals?: boolean;
    /** Shorter limits on requests than the platform's HTTP_LIMITS (tests). */
    httpLimits?: HttpLimits;
  } = {},
): Promise<Gateway> {
  const runtime = await startRuntime(
    {
      service: 'gateway',
      ...runtimeSchemaOf('gateway'),
      env: GatewayEnv,
      // Without Redis, rate limits are counted in memory per replica (its share).
      redis: 'degradable',
      jetstream: true,
      handleSignals: options.handleSignals ?? true,
    },
    env,
  );
  const { config } = runtime;
  const accounts = accountsRepository(runtime.sql);
  const keys = keyOwnerCache(accounts, {
    ttlMs: config.KEY_CACHE_TTL_MS,
    maxEntries: 10_000,
  });
  const directory = await partnerDirectory({
    nats: runtime.nats,
    prefix: config.NATS_PREFIX,
    replicas: config.STREAM_REPLICAS,
    accounts,
    logger: runtime.logger,
  });
  await onAccountChanges(
    runtime.sql,
    () => keys.invalidate(),
    () => directory.publish(),
  );
  await directory.publish();
  const statuses = statusCache({ ttlMs: config.STATUS_CACHE_TTL_MS, maxEntries: 100_000 });
  await onStatusChanges(runtime.sql, statuses);
  const redis = runtime.redis!;
  const used = keyUseRecorder((keyId, at) => accounts.recordKeyUse(keyId, at), {
    intervalMs: KEY_USE_INTERVAL_MS,
    maxKeys: 100_000,
    logger: runtime.logger,
  });
  const app = await buildGatewayApp({
    logger: runtime.logger,
    keys: { findKeyOwner: keys.findKeyOwner, used },
    accounts,
    statuses,
    nats: runtime.nats,
    natsPrefix: config.NATS_PREFIX,
    redis,
    registry: runtime.ops.registry,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
    paymentsTimeoutMs: config.PAYMENTS_TIMEOUT_MS,
    receiptsTimeoutMs: config.RECEIPTS_TIMEOUT_MS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    statusRateLimitPerMinute: config.STATUS_RATE_LIMIT_PER_MINUTE,
    replicas: config.GATEWAY_REPLICAS,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    // Seals the webhook signing secrets made through the API and the dashboard.
    ...(config.SECRETS_KEY ? { secretsKey: secretsKey(config.SECRETS_KEY) } : {}),
    httpLimits: options.httpLimits,
  });
  const address = await app.listen({ host: config.HTTP_HOST, port: config.HTTP_PORT });
  runtime.onStop(async () => {
    directory.stop();
    // Requests in flight finish; a connection still open past half the shutdown budget
    // (a client that never finishes its body) is cut, so it cannot hold the drain.
    const cut = setTimeout(() => app.server.closeAllConnections(), config.SHUTDOWN_TIMEOUT_MS / 2);
    try {
      await app.close();
    } finally {
      clearTimeout(cut);
    }
  });
  runtime.logger.info({ address }, 'gateway listening');
  runtime.ops.markReady();
  return { runtime, app, url: address.replace('0.0.0.0', '127.0.0.1') };
}
