import { DurableConsumers, Streams } from '@dzpay/contracts';
import {
  deployedStream,
  ensureStream,
  outboxPruneTask,
  partnerDirectory,
  partnerHttpClient,
  secretsKey,
  startOutboxRelay,
  startRuntime,
  type PartnerConnect,
  type Runtime,
} from '@dzpay/platform';
import { attemptOutcomes } from './adapters/deliveries/attempt-outcomes.ts';
import { deliveryClaims } from './adapters/deliveries/claims.ts';
import { deliveryIntake } from './adapters/deliveries/intake.ts';
import { deliveriesListing } from './adapters/deliveries/listing.ts';
import { deliveryReplays } from './adapters/deliveries/replays.ts';
import { pruneFinishedDeliveries } from './adapters/deliveries/retention.ts';
import { testDeliveries } from './adapters/deliveries/test-deliveries.ts';
import { deliveryViews } from './adapters/deliveries/views.ts';
import { deliveryMetrics } from './adapters/delivery-metrics.ts';
import { eventsRepository } from './adapters/events-repository.ts';
import { DispatcherEnv } from './config.ts';
import { attemptDelivery } from './handlers/attempt.ts';
import { serveDeliveriesHandlers } from './handlers/deliveries-handlers.ts';
import { serveEventsHandlers } from './handlers/events-handlers.ts';
import { startPaymentIntake } from './handlers/payment-intake.ts';
import { startScheduler } from './handlers/scheduler.ts';
import { runtimeSchemaOf } from '@dzpay/stack';

/** What a claim adds to the attempt's timeout: time to record the outcome. */
const LEASE_MARGIN_MS = 5_000;

/**
 * Wires the webhook dispatcher: PAYMENTS intake, the delivery scheduler, the merchant
 * API's deliveries subjects (a payment's, all, replay) and the outbox relay to WEBHOOKS. Shutdown
 * stops the subjects, then the intake and the scheduler, then lets the relay publish
 * what they committed, before the runtime drains NATS and closes Postgres.
 */
export async function startWebhookDispatcher(
  env: Record<string, string | undefined>,
  options: {
    handleSignals?: boolean;
    /** Opens partner connections (tests: one that never leaves loopback). */
    partnerConnect?: PartnerConnect;
  } = {},
): Promise<Runtime<DispatcherEnv>> {
  const runtime = await startRuntime(
    {
      service: 'webhook-dispatcher',
      ...runtimeSchemaOf('webhook-dispatcher'),
      env: DispatcherEnv,
      jetstream: true,
      handleSignals: options.handleSignals ?? true,
    },
    env,
  );
  const { config, logger, nats, sql } = runtime;
  const prefix = config.NATS_PREFIX;
  await ensureStream(nats, prefix, deployedStream(Streams.webhooks, config));

  // Shared by the scheduler and the merchant API's subjects: attempts recorded by either
  // meanwhile commit in one batch.
  const claims = deliveryClaims(sql);
  const outcomes = attemptOutcomes(sql);
  const replays = deliveryReplays(sql);
  const client = partnerHttpClient({
    allowPrivateTargets: config.PARTNER_ALLOW_PRIVATE_TARGETS,
    ...(options.partnerConnect ? { connect: options.partnerConnect } : {}),
  });
  const directory = partnerDirectory({
    nats,
    prefix,
    secretsKey: secretsKey(config.SECRETS_KEY),
    logger,
  });
  const events = eventsRepository(sql);
  const clock = () => new Date();
  const attemptDeps = { directory, client, timeoutMs: config.WEBHOOK_TIMEOUT_MS, clock };
  // Test events are attempted while the merchant waits; a shutdown abandons them too.
  const stopping = new AbortController();
  const scheduler = startScheduler({
    claims,
    outcomes,
    attempt: (delivery, abandon) => attemptDelivery(attemptDeps, delivery, abandon),
    schedule: config.WEBHOOK_RETRY_SCHEDULE_MS,
    perEndpoint: config.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    intervalMs: config.SCHEDULER_INTERVAL_MS,
    leaseMs: config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS,
    logger,
    metrics: deliveryMetrics(runtime.ops.registry, sql),
    clock,
  });
  const intake = await startPaymentIntake({
    nats,
    prefix,
    stream: deployedStream(Streams.payments, config),
    consumer: { ...DurableConsumers.dispatcherPayments, durable: config.WEBHOOK_CONSUMER },
    ackWaitMs: config.INTAKE_ACK_WAIT_MS,
    deliveries: deliveryIntake(sql, {
      firstAttemptDelayMs: config.WEBHOOK_RETRY_SCHEDULE_MS[0] ?? 0,
    }),
    enqueued: () => scheduler.wake(),
    wantedKinds: async (merchantId, mode) =>
      (await directory.webhookTarget(merchantId, mode))?.events,
    logger,
    retryDelayMs: config.INTAKE_RETRY_MS,
  });
  const rpcServers = [
    ...(await serveDeliveriesHandlers({
      nats,
      prefix,
      views: deliveryViews(sql),
      listing: deliveriesListing(sql),
      replays,
      replayed: () => scheduler.wake(),
      logger,
    })),
    ...(await serveEventsHandlers({
      nats,
      prefix,
      replays,
      testDeliveries: testDeliveries(sql),
      claims,
      outcomes,
      events,
      directory,
      attempt: (delivery) => attemptDelivery(attemptDeps, delivery, stopping.signal),
      leaseMs: config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS,
      replayed: () => scheduler.wake(),
      clock,
      logger,
    })),
  ];
  const relay = await startOutboxRelay({
    sql,
    nats,
    prefix,
    logger,
    intervalMs: config.RELAY_INTERVAL_MS,
  });

  runtime.prune([
    outboxPruneTask(sql, config.OUTBOX_RETENTION_MS),
    {
      name: 'finished deliveries',
      prune: (limit) => pruneFinishedDeliveries(sql, config.DEDUP_RETENTION_MS, limit),
    },
    {
      name: 'undelivered events',
      prune: (limit) => events.pruneUndelivered(config.DEDUP_RETENTION_MS, limit),
    },
  ]);

  runtime.onStop(async () => {
    // No more merchant API requests (those taken are answered first; a test event's
    // attempt in flight is abandoned and answered 503).
    stopping.abort();
    await Promise.all(rpcServers.map((server) => server.stop()));
    // No new deliveries, no new attempts; attempts in flight are handed back.
    await intake.stop();
    await scheduler.stop();
    client.close();
    // Then every state change they committed reaches WEBHOOKS.
    await relay.flush();
    await relay.stop();
  });
  runtime.ops.markReady();
  return runtime;
}
