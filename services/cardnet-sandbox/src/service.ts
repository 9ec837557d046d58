import { createLogger, loadConfig, type HttpLimits } from '@dzpay/platform';
import { buildSandboxApp } from './app.ts';
import { SandboxEnv } from './config.ts';

export interface Sandbox {
  /** Where the sandbox listens, for server-to-server calls (the adapter's baseUrl). */
  url: string;
  /** The base URL of formUrl, the one a payer's browser opens. */
  publicUrl: string;
  close(): Promise<void>;
}

/**
 * Starts the SATIM sandbox: a plain HTTP server with its orders in memory. It needs no
 * Postgres or NATS, so it does without the service runtime. `clock` lets tests move
 * time past a session timeout.
 */
export async function startSandbox(
  env: Record<string, string | undefined>,
  options: {
    handleSignals?: boolean;
    clock?: () => Date;
    /** Shorter limits on requests than the platform's HTTP_LIMITS (tests). */
    httpLimits?: HttpLimits;
  } = {},
): Promise<Sandbox> {
  const config = loadConfig(SandboxEnv, env);
  const logger = createLogger('cardnet-sandbox', config.LOG_LEVEL);
  const stopping = new AbortController();
  let publicUrl = config.SANDBOX_PUBLIC_URL ?? '';
  const app = buildSandboxApp({
    logger,
    credentials: { userName: config.SANDBOX_USERNAME, password: config.SANDBOX_PASSWORD },
    confirmDelayMs: config.SANDBOX_CONFIRM_DELAY_MS,
    publicUrl: () => publicUrl,
    clock: options.clock ?? (() => new Date()),
    stopping: stopping.signal,
    control: config.SANDBOX_CONTROL,
    statusRefunds: config.SANDBOX_STATUS_REFUNDS,
    timeZone: config.SANDBOX_TIME_ZONE,
    httpLimits: options.httpLimits,
  });
  const address = await app.listen({ host: config.SANDBOX_HOST, port: config.SANDBOX_PORT });
  const url = address.replace('0.0.0.0', '127.0.0.1');
  // The port is known only now when SANDBOX_PORT is 0.
  publicUrl ||= url;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Release confirmations held by the timeout card first: close() waits for them.
      stopping.abort();
      await app.close();
      logger.info('stopped');
    })());

  if (options.handleSignals ?? true) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        logger.info({ signal }, 'shutting down');
        close().then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      });
    }
  }
  if (config.SANDBOX_CONTROL) logger.warn('control API on under /_control/: for tests only');
  logger.info({ url, publicUrl }, 'cardnet sandbox listening');
  return { url, publicUrl, close };
}
