import { onStatusChanges, secretsKey, startRuntime, type Runtime } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import { accountsRepository } from './adapters/accounts-repository.ts';
import { dashboardApiKeys } from './adapters/dashboard-api-keys.ts';
import { loginThrottle } from './adapters/dashboard-login-throttle.ts';
import { dashboardSessions } from './adapters/dashboard-sessions.ts';
import { dashboardUsers } from './adapters/dashboard-users.ts';
import { keyOwnerCache, onAccountChanges } from './adapters/key-owner-cache.ts';
import { statusCache } from './adapters/status-cache.ts';
import { partnerDirectory } from './adapters/partner-directory.ts';
import { buildGatewayApp } from './app.ts';
import { GatewayEnv } from './config.ts';
import { DEFAULT_DASHBOARD_SETTINGS, type DashboardDeps } from './dashboard/settings.ts';
import { migrations } from './migrations.ts';

export interface Gateway {
  runtime: Runtime<GatewayEnv>;
  app: FastifyInstance;
  /** The public base URL the gateway listens on. */
  url: string;
}

/** Wires the gateway: runtime, accounts, the public HTTP app; shutdown closes HTTP first. */
export async function startGateway(
  env: Record<string, string | undefined>,
  options: { handleSignals?: boolean } = {},
): Promise<Gateway> {
  const runtime = await startRuntime(
    {
      service: 'gateway',
      schema: migrations.schema,
      migrations: migrations.folder,
      env: GatewayEnv,
      // Without Redis, rate limits are counted in memory per replica (its share).
      redis: 'degradable',
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
  const dashboardSettings = {
    ...DEFAULT_DASHBOARD_SETTINGS,
    cookieSecure: config.DASHBOARD_COOKIE_SECURE,
    sessionIdleSeconds: config.DASHBOARD_SESSION_IDLE_MINUTES * 60,
    sessionMaxSeconds: config.DASHBOARD_SESSION_MAX_HOURS * 3600,
  };
  const dashboard: DashboardDeps = {
    settings: dashboardSettings,
    users: dashboardUsers(runtime.sql),
    sessions: dashboardSessions(redis, {
      idleSeconds: dashboardSettings.sessionIdleSeconds,
      maxSeconds: dashboardSettings.sessionMaxSeconds,
    }),
    apiKeys: dashboardApiKeys(runtime.sql),
    throttle: loginThrottle(redis),
    sql: runtime.sql,
  };
  const app = await buildGatewayApp({
    logger: runtime.logger,
    keys,
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
    dashboard,
    // Seals the webhook signing secrets made through the API and the dashboard.
    ...(config.SECRETS_KEY ? { secretsKey: secretsKey(config.SECRETS_KEY) } : {}),
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
