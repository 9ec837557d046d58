import { accountsRepository, dashboardUsers, passwordResets } from '@dzpay/accounts';
import {
  secretsKey,
  smtpMailer,
  startRuntime,
  type HttpLimits,
  type LogDestination,
  type Runtime,
} from '@dzpay/platform';
import { runtimeSchemaOf } from '@dzpay/stack';
import type { FastifyInstance } from 'fastify';
import { formTokens } from './adapters/form-tokens.ts';
import { loginThrottle } from './adapters/login-throttle-store.ts';
import { passwordResetThrottle } from './adapters/password-reset-throttle-store.ts';
import { dashboardSessions } from './adapters/sessions.ts';
import { buildDashboardApp } from './app.ts';
import { DashboardEnv } from './config.ts';
import { resetMailing, type ResetMailing } from './pages/password-reset-mailing.ts';
import { DEFAULT_DASHBOARD_SETTINGS } from './settings.ts';

export interface Dashboard {
  runtime: Runtime<DashboardEnv>;
  app: FastifyInstance;
  /** Where the dashboard listens; its pages are under /dashboard. */
  url: string;
  /** Password reset links being mailed: `settled()` waits for them (tests, shutdown). */
  resetMailing: ResetMailing;
}

/** Wires the dashboard: runtime, accounts, sessions, the pages; shutdown closes HTTP first. */
export async function startDashboard(
  env: Record<string, string | undefined>,
  options: {
    handleSignals?: boolean;
    /** Where the log goes: stdout, unless a test reads the lines. */
    logDestination?: LogDestination;
    /** Shorter limits on requests than the platform's HTTP_LIMITS (tests). */
    httpLimits?: HttpLimits;
  } = {},
): Promise<Dashboard> {
  const runtime = await startRuntime(
    {
      service: 'dashboard',
      // The accounts schema, shared with the gateway (libs/accounts/migrations); applying
      // its migrations here too is safe (each runs once, under the schema's lock) and lets
      // the dashboard start first.
      ...runtimeSchemaOf('dashboard'),
      env: DashboardEnv,
      // Sessions live in Redis: without it the pages say so (503) in the user's language,
      // so the dashboard stays in rotation, degraded, rather than vanish behind the ingress.
      redis: 'degradable',
      handleSignals: options.handleSignals ?? true,
      logDestination: options.logDestination,
    },
    env,
  );
  const { config } = runtime;
  const redis = runtime.redis!;
  const settings = {
    ...DEFAULT_DASHBOARD_SETTINGS,
    cookieSecure: config.DASHBOARD_COOKIE_SECURE,
    sessionIdleSeconds: config.DASHBOARD_SESSION_IDLE_MINUTES * 60,
    sessionMaxSeconds: config.DASHBOARD_SESSION_MAX_HOURS * 3600,
  };
  // Invitations and password reset links go out through the mail server (SMTP_*, as
  // receipts'); nothing connects before the first one.
  const mailer = smtpMailer(config);
  const resets = passwordResets(runtime.sql);
  const mailing = resetMailing({
    resets,
    mailer,
    minutes: config.DASHBOARD_PASSWORD_RESET_MINUTES,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    now: () => new Date(),
  });
  const app = await buildDashboardApp(
    {
      logger: runtime.logger,
      registry: runtime.ops.registry,
      trustProxyHops: config.TRUST_PROXY_HOPS,
      httpLimits: options.httpLimits,
    },
    {
      settings,
      users: dashboardUsers(runtime.sql),
      sessions: dashboardSessions(redis, {
        idleSeconds: settings.sessionIdleSeconds,
        maxSeconds: settings.sessionMaxSeconds,
      }),
      formTokens: formTokens(redis),
      throttle: loginThrottle(redis),
      passwordReset: {
        resets,
        throttle: passwordResetThrottle(redis),
        mailing,
      },
      mailer,
      accounts: accountsRepository(runtime.sql),
      nats: runtime.nats,
      natsPrefix: config.NATS_PREFIX,
      serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
      paymentsTimeoutMs: config.PAYMENTS_TIMEOUT_MS,
      receiptsTimeoutMs: config.RECEIPTS_TIMEOUT_MS,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      ...(config.SECRETS_KEY ? { secretsKey: secretsKey(config.SECRETS_KEY) } : {}),
    },
  );
  const address = await app.listen({ host: config.HTTP_HOST, port: config.HTTP_PORT });
  runtime.onStop(() => app.close());
  // Links already asked for still go out before the connections close.
  runtime.onStop(async () => {
    await mailing.settled();
    mailer.close();
  });
  runtime.logger.info({ address }, 'dashboard listening');
  runtime.ops.markReady();
  return {
    runtime,
    app,
    url: address.replace('0.0.0.0', '127.0.0.1'),
    resetMailing: mailing,
  };
}
