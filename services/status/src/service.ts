import { startRuntime, type Runtime } from '@dzpay/platform';
import { paymentsConsumer } from './adapters/payments-consumer.ts';
import { statusRepository } from './adapters/status-repository.ts';
import { StatusEnv } from './config.ts';
import { startPaymentsProjection } from './handlers/payments-projection.ts';
import { serveStatusHandlers } from './handlers/status-handlers.ts';

/**
 * Wires status: runtime, the PAYMENTS projection and the status subject. Shutdown stops
 * both intakes before the runtime drains NATS and closes Postgres.
 */
export async function startStatus(
  env: Record<string, string | undefined>,
  options: { handleSignals?: boolean } = {},
): Promise<Runtime<StatusEnv>> {
  const runtime = await startRuntime(
    {
      service: 'status',
      schema: 'status',
      migrations: new URL('../migrations/', import.meta.url),
      env: StatusEnv,
      handleSignals: options.handleSignals ?? true,
    },
    env,
  );
  const { config, logger, nats, sql } = runtime;
  const repository = statusRepository(sql);
  const durable = config.STATUS_CONSUMER;

  const consumer = await paymentsConsumer({
    nats,
    prefix: config.NATS_PREFIX,
    durable,
    appliedUpTo: () => repository.positionOf(durable),
    ackWaitMs: config.PROJECTION_ACK_WAIT_MS,
    logger,
  });
  const projection = startPaymentsProjection({
    consumer,
    durable,
    repository,
    logger,
    retryDelayMs: config.PROJECTION_RETRY_MS,
  });
  const server = await serveStatusHandlers({
    nats,
    prefix: config.NATS_PREFIX,
    repository,
    logger,
  });

  runtime.onStop(async () => {
    await Promise.all([server.stop(), projection.stop()]);
  });
  runtime.ops.markReady();
  return runtime;
}
