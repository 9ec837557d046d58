import {
  DurableConsumers,
  statusWebhooksDurable,
  Streams,
  type DurableConsumerSpec,
} from '@dzpay/contracts';
import {
  deployedStream,
  onStatusChanges,
  processedEventsPruneTask,
  startRuntime,
  type Runtime,
} from '@dzpay/platform';
import { attemptsCache } from './adapters/attempts-cache.ts';
import { paymentsHeldAttempts } from './adapters/payments-held.ts';
import { statusRepository } from './adapters/status-repository.ts';
import { StatusEnv } from './config.ts';
import { paymentsHandler } from './handlers/payments-projection.ts';
import { startProjection, type MessageHandler } from './handlers/projection.ts';
import { serveStatusHandlers } from './handlers/status-handlers.ts';
import { webhooksHandler } from './handlers/webhooks-projection.ts';
import { runtimeSchemaOf } from '@dzpay/stack';

/**
 * Wires status: runtime, the PAYMENTS and WEBHOOKS projections (each its own durable
 * consumer) and the status subject. Shutdown stops every intake before the runtime
 * drains NATS and closes Postgres.
 */
export async function startStatus(
  env: Record<string, string | undefined>,
  options: { handleSignals?: boolean } = {},
): Promise<Runtime<StatusEnv>> {
  const runtime = await startRuntime(
    {
      service: 'status',
      ...runtimeSchemaOf('status'),
      env: StatusEnv,
      jetstream: true,
      handleSignals: options.handleSignals ?? true,
    },
    env,
  );
  const { config, logger, nats, sql } = runtime;
  // Filled by queries; this replica forgets what it projects before acknowledging it,
  // every replica forgets what Postgres notifies.
  const reader = statusRepository(sql);
  const cache = attemptsCache((scope, reference) => reader.attemptsOf(scope, reference), {
    ttlMs: config.STATUS_CACHE_TTL_MS,
    maxEntries: config.STATUS_CACHE_MAX_ENTRIES,
  });
  await onStatusChanges(sql, cache);
  const repository = statusRepository(sql, { onCommitted: (changed) => cache.forget(changed) });

  /** One projection: the catalog's consumer under this deployment's name for it. */
  function project(
    name: string,
    consumer: DurableConsumerSpec,
    durable: string,
    handlerOf: (repo: typeof repository, durable: string) => MessageHandler,
  ) {
    return startProjection({
      name,
      nats,
      prefix: config.NATS_PREFIX,
      stream: deployedStream(Streams[consumer.stream], config),
      consumer: { ...consumer, durable },
      handle: handlerOf(repository, durable),
      appliedUpTo: () => repository.positionOf(durable),
      ackWaitMs: config.PROJECTION_ACK_WAIT_MS,
      retryDelayMs: config.PROJECTION_RETRY_MS,
      logger,
    });
  }
  const projections = [
    await project(
      'payment',
      DurableConsumers.statusPayments,
      config.STATUS_CONSUMER,
      paymentsHandler,
    ),
    await project(
      'webhook delivery',
      DurableConsumers.statusWebhooks,
      statusWebhooksDurable(config.STATUS_CONSUMER),
      webhooksHandler,
    ),
  ];
  const server = await serveStatusHandlers({
    nats,
    prefix: config.NATS_PREFIX,
    attempts: cache,
    heldAttempts: paymentsHeldAttempts(nats, config.NATS_PREFIX),
    logger,
  });

  runtime.prune([processedEventsPruneTask(sql, config.DEDUP_RETENTION_MS)]);

  runtime.onStop(async () => {
    await Promise.all([server.stop(), ...projections.map((p) => p.stop())]);
  });
  runtime.ops.markReady();
  return runtime;
}
