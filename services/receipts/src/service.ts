import { startRuntime, type Runtime } from '@dzpay/platform';
import { smtpMailer } from './adapters/mailer.ts';
import { receiptSendLimit } from './adapters/send-limit.ts';
import { sendsRepository } from './adapters/sends-repository.ts';
import { ReceiptsEnv } from './config.ts';
import { serveReceiptEmail } from './handlers/receipt-email.ts';
import { runtimeSchemaOf } from '@dzpay/stack';

/**
 * Wires receipts: runtime (with Redis for the hourly counts, memory while it is down), the SMTP transport, the
 * send log and `receipts.email.send`. Shutdown answers the requests taken, then closes
 * the mail connections, before the runtime drains NATS and closes Postgres and Redis.
 */
export async function startReceipts(
  env: Record<string, string | undefined>,
  options: { handleSignals?: boolean } = {},
): Promise<Runtime<ReceiptsEnv>> {
  const runtime = await startRuntime(
    {
      service: 'receipts',
      ...runtimeSchemaOf('receipts'),
      env: ReceiptsEnv,
      // Without Redis the hourly counts are kept per replica: degraded, still serving.
      redis: 'degradable',
      handleSignals: options.handleSignals ?? true,
    },
    env,
  );
  const { config, logger, nats, sql, redis } = runtime;
  const mailer = smtpMailer(config);
  const server = await serveReceiptEmail({
    nats,
    prefix: config.NATS_PREFIX,
    paymentsTimeoutMs: config.PAYMENTS_TIMEOUT_MS,
    limit: receiptSendLimit(redis!, config.RECEIPT_LIMIT_WINDOW_SECONDS, config.RECEIPTS_REPLICAS),
    mailer,
    sends: sendsRepository(sql),
    logger,
  });

  runtime.onStop(async () => {
    await server.stop();
    mailer.close();
  });
  runtime.ops.markReady();
  return runtime;
}
