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
import { referenceLockMetrics } from './agency/lock-metrics.ts';
import { settlementMetrics } from './settlement/settlement-metrics.ts';
import { reconciliationMetrics } from './reconciliation/reconciliation-metrics.ts';
import { reconciliationRepository } from './reconciliation/reconciliation-repository.ts';
import { measuredCardNetworks } from './card-network/measured-card-network.ts';
import { satimCardNetwork } from './card-network/satim-client.ts';
import { unconfiguredCardNetwork } from './card-network/unconfigured-card-network.ts';
import { PaymentsEnv } from './config.ts';
import { paymentsContext, type ServedContext } from './context.ts';
import { referenceLocks } from './agency/reference-lock.ts';
import { productLookup } from './agency/partner-client.ts';
import { serveAgencyHandlers } from './agency/agency-handlers.ts';
import { serveReportHandlers } from './balance/daily-report-handlers.ts';
import { serveBalanceHandlers } from './balance/balance-handlers.ts';
import { servePaymentLinkHandlers } from './links/link-handlers.ts';
import { serveCheckoutHandlers } from './checkout/checkout-handlers.ts';
import { serveCancelHandlers } from './checkout/cancel-handlers.ts';
import { serveListingHandlers } from './listing/listing-handlers.ts';
import { serveRefundHandlers } from './refunds/refund-handlers.ts';
import { serveRegistrationHandlers } from './registration/registration-handlers.ts';
import { serveReconcileHandler } from './reconciliation/reconcile-handlers.ts';
import { reconciler } from './reconciliation/reconciler.ts';
import { startSweeper } from './settlement/sweeper.ts';
import { startReconciliationSchedule } from './reconciliation/reconciliation-schedule.ts';
import { runtimeSchemaOf } from '@dzpay/stack';

/** An Idempotency-Key is replayed for 24 hours (ARCHITECTURE.md §6), then forgotten. */
const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;

/**
 * Wires payments: runtime, the PAYMENTS stream, card networks per mode, the one context,
 * each operation's NATS face, the sweeper, the reconciliation schedule and the outbox
 * relay. Shutdown stops the handlers and the sweeper first, then lets the relay publish
 * what was committed.
 */
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
  const prefix = config.NATS_PREFIX;
  const ctx: ServedContext = {
    ...paymentsContext({
      sql,
      logger,
      cardNetworks,
      config,
      unconfigured: config.CARDNET_LIVE_URL ? [] : ['live'],
      onUnexplainedRefund: () => settlementWatch.unexplainedRefund(),
    }),
    nats,
    prefix,
  };
  const { clock, repository, refunds, keys, settle } = ctx;
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
    withSettlement: ctx.withSettlement,
    // A mode without a card network configured is reported as skipped, never asked.
    cardNetworks: config.CARDNET_LIVE_URL ? cardNetworks : { test: cardNetworks.test },
    logger,
    clock,
    onReport: reconciliationMetrics(runtime.ops.registry).record,
  });

  // One room per operation, each with its NATS face, over the one context.
  const servers = [
    ...(await serveRegistrationHandlers(ctx)),
    ...(await serveListingHandlers(ctx)),
    ...(await serveRefundHandlers(ctx)),
    ...(await serveCheckoutHandlers(ctx)),
    ...(await serveCancelHandlers(ctx)),
    ...(await serveAgencyHandlers(ctx, {
      locks: referenceLocks(runtime.redis!),
      lockMetrics: referenceLockMetrics(runtime.ops.registry, sql),
      lookupProduct,
    })),
    ...(await servePaymentLinkHandlers(ctx)),
    ...(await serveBalanceHandlers(ctx)),
    ...(await serveReportHandlers(ctx)),
    await serveReconcileHandler(ctx, reconciliation),
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
