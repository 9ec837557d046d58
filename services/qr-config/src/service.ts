import { processedEventsPruneTask, startRuntime, type Runtime } from '@dzpay/platform';
import { qrRepository } from './adapters/qr-repository.ts';
import { QrConfigEnv } from './config.ts';
import { consumePaymentEvents } from './handlers/payment-events.ts';
import { serveQrHandlers } from './handlers/qr-handlers.ts';
import { runtimeSchemaOf } from '@dzpay/stack';

/**
 * Wires qr-config: runtime, repository, NATS handlers and the payment-event consumer;
 * shutdown stops both (finishing what they took) before the connections close.
 */
export async function startQrConfig(
  env: Record<string, string | undefined>,
  options: { handleSignals?: boolean } = {},
): Promise<Runtime<QrConfigEnv>> {
  const runtime = await startRuntime(
    {
      service: 'qr-config',
      ...runtimeSchemaOf('qr-config'),
      env: QrConfigEnv,
      jetstream: true,
      handleSignals: options.handleSignals ?? true,
    },
    env,
  );
  const deps = {
    nats: runtime.nats,
    prefix: runtime.config.NATS_PREFIX,
    repository: qrRepository(runtime.sql),
    logger: runtime.logger,
  };
  const servers = await serveQrHandlers(deps);
  runtime.onStop(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });
  const paymentEvents = await consumePaymentEvents({ ...deps, deployment: runtime.config });
  runtime.onStop(() => paymentEvents.stop());
  runtime.prune([processedEventsPruneTask(runtime.sql, runtime.config.DEDUP_RETENTION_MS)]);
  runtime.ops.markReady();
  return runtime;
}
