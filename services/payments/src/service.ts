import { Streams } from '@dzpay/contracts';
import {
  deployedStream,
  ensureStream,
  outboxPruneTask,
  partnerDirectory,
  partnerHttpClient,
  secretsKey,
  startOutboxRelay,
  type PartnerConnect,
  startRuntime,
  type Runtime,
} from '@dzpay/platform';
import { referenceLockMetrics } from './adapters/lock-metrics.ts';
import { settlementMetrics } from './adapters/settlement-metrics.ts';
import { reconciliationMetrics } from './adapters/reconciliation-metrics.ts';
import { reconciliationRepository } from './adapters/reconciliation-repository.ts';
import { measuredCardNetworks } from './adapters/cardnet/measured-card-network.ts';
import { satimCardNetwork } from './adapters/cardnet/satim-client.ts';
import { unconfiguredCardNetwork } from './adapters/unconfigured-card-network.ts';
import { PaymentsEnv } from './config.ts';
import { paymentsCore } from './core.ts';
import { referenceLocks } from './adapters/reference-lock.ts';
import { productLookup } from './adapters/partner-client.ts';
import { serveAttemptHandlers } from './handlers/attempt-handlers.ts';
import { serveReportHandlers } from './handlers/report-handlers.ts';
import { serveBalanceHandlers } from './handlers/balance-handlers.ts';
import { servePaymentLinkHandlers } from './handlers/payment-link-handlers.ts';
import { serveCheckoutHandlers } from './handlers/checkout-handlers.ts';
import { servePaymentsHandlers } from './handlers/payments-handlers.ts';
import { orderPlacer } from './handlers/place-order.ts';
import { serveReconcileHandler } from './handlers/reconcile-handlers.ts';
import { reconciler } from './handlers/reconciler.ts';
import { startSweeper } from './jobs/sweeper.ts';
import { startReconciliationSchedule } from './jobs/reconciliation-schedule.ts';
import { runtimeSchemaOf } from '@dzpay/stack';

/**
 * Wires payments: runtime, the PAYMENTS stream, card networks per mode, NATS handlers,
 * the sweeper and the outbox relay. Shutdown stops the handlers and the sweeper first,
 * then lets the relay publish what was committed.
 */
/** An Idempotency-Key is replayed for 24 hours (ARCHITECTURE.md §6), then forgotten. */
const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;

export async function startPayments(
  env: Record<string, string | undefined>,
  options: {
    handleSignals?: boolean;
    /** Opens partner connections (tests: one that never leaves loopback). */
    partnerConnect?: PartnerConnect;
  } = {},
): Promise<Runtime<PaymentsEnv>> {
  const runtime = await startRuntime(
    {
      service: 'payments',
      ...runtimeSchemaOf('payments'),
      env: PaymentsEnv,
      // Reference locks fall back to Postgres' unique index without Redis.
      redis: 'degradable',
      jetstream: true,
      handleSignals: options.handleSignals ?? true,
    },
    env,
  );
  const { config, logger, nats, sql } = runtime;
  await ensureStream(nats, config.NATS_PREFIX, deployedStream(Streams.payments, config));

  const cardNetworks = measuredCardNetworks(
    {
      test: satimCardNetwork({
        baseUrl: config.CARDNET_TEST_URL,
        userName: config.CARDNET_TEST_USERNAME,
        password: config.CARDNET_TEST_PASSWORD,
        timeoutMs: config.CARDNET_TIMEOUT_MS,
      }),
      live: config.CARDNET_LIVE_URL
        ? satimCardNetwork({
            baseUrl: config.CARDNET_LIVE_URL,
            userName: config.CARDNET_LIVE_USERNAME,
            password: config.CARDNET_LIVE_PASSWORD,
            timeoutMs: config.CARDNET_TIMEOUT_MS,
            ...(config.CARDNET_TERMINAL_ID ? { terminalId: config.CARDNET_TERMINAL_ID } : {}),
          })
        : unconfiguredCardNetwork('live'),
    },
    runtime.ops.registry,
  );
  const settlementWatch = settlementMetrics(runtime.ops.registry, sql, config.OVERDUE_ALERT_MS);
  const core = paymentsCore({
    sql,
    logger,
    cardNetworks,
    config,
    unconfigured: config.CARDNET_LIVE_URL ? [] : ['live'],
    onUnexplainedRefund: () => settlementWatch.unexplainedRefund(),
  });
  const { clock, repository, refunds, keys, settle } = core;
  const prefix = config.NATS_PREFIX;
  const partnerClient = partnerHttpClient({
    allowPrivateTargets: config.PARTNER_ALLOW_PRIVATE_TARGETS,
    ...(options.partnerConnect ? { connect: options.partnerConnect } : {}),
  });
  const lookupProduct = productLookup({
    // Read on every lookup: a payer's page follows a changed API_URL at once.
    directory: partnerDirectory({
      nats,
      prefix,
      secretsKey: secretsKey(config.SECRETS_KEY),
      freshMs: 0,
      logger,
    }),
    client: partnerClient,
    logger,
  });

  const reconciliation = reconciler({
    store: reconciliationRepository(sql),
    repository,
    withSettlement: core.withSettlement,
    // A mode without a card network configured is reported as skipped, never asked.
    cardNetworks: config.CARDNET_LIVE_URL ? cardNetworks : { test: cardNetworks.test },
    logger,
    clock,
    onReport: reconciliationMetrics(runtime.ops.registry).record,
  });

  const wiring = { nats, prefix, sql, logger, clock };
  const servers = [
    ...(await servePaymentsHandlers(wiring, core, {
      publicBaseUrl: config.PUBLIC_BASE_URL,
      windowMs: config.PAYMENT_WINDOW_MS,
    })),
    ...(await serveCheckoutHandlers({
      nats,
      prefix,
      repository,
      settle,
      logger,
      placeOrder: orderPlacer({
        repository,
        cardNetworks,
        health: core.health,
        logger,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        clock,
        withSettlement: core.withSettlement,
      }),
    })),
    ...(await serveAttemptHandlers({
      nats,
      prefix,
      repository,
      locks: referenceLocks(runtime.redis!),
      lockMetrics: referenceLockMetrics(runtime.ops.registry, sql),
      settle,
      logger,
      lookupProduct,
      open: {
        repository,
        cardNetworks,
        health: core.health,
        logger,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        windowMs: config.PAYMENT_WINDOW_MS,
        clock,
      },
    })),
    ...(await serveReportHandlers(wiring)),
    ...(await serveBalanceHandlers(wiring)),
    ...(await servePaymentLinkHandlers(wiring, core, {
      publicBaseUrl: config.PUBLIC_BASE_URL,
      windowMs: config.PAYMENT_WINDOW_MS,
      pressHoldMs: config.LINK_PRESS_HOLD_MS,
    })),
    await serveReconcileHandler({ nats, prefix, logger, clock }, reconciliation),
  ];
  const sweeper = startSweeper({
    repository,
    refunds,
    settle,
    logger,
    intervalMs: config.SWEEP_INTERVAL_MS,
    staleAfterMs: config.RECONCILE_AFTER_MS,
    refundQuietMs: config.REFUND_QUIET_MS,
    overdueMs: config.OVERDUE_ALERT_MS,
  });
  const reconciliationSchedule = startReconciliationSchedule({
    reconciler: reconciliation,
    intervalMs: config.RECONCILIATION_INTERVAL_MS,
    windowMs: config.RECONCILIATION_WINDOW_MS,
    logger,
    clock,
  });
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
      name: 'idempotency keys',
      prune: (limit) => keys.forget(new Date(clock().getTime() - IDEMPOTENCY_KEY_TTL_MS), limit),
    },
  ]);

  runtime.onStop(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await sweeper.stop();
    await reconciliationSchedule.stop();
    partnerClient.close();
    await relay.flush();
    await relay.stop();
  });
  runtime.ops.markReady();
  return runtime;
}
