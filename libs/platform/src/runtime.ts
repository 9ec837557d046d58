import type { z } from 'zod';
import type { Redis } from 'ioredis';
import { loadConfig, type BaseEnv } from './config.ts';
import { connectPostgres, migrate, type Sql } from './db.ts';
import { connectionLook, jetStreamWatch } from './jetstream-watch.ts';
import { createLogger, type LogDestination, type Logger } from './logger.ts';
import { connectNats, natsAccessOf, type NatsConnection } from './nats.ts';
import { bindMetrics, platformMetrics } from './metrics.ts';
import { commitProbe } from './commit-probe.ts';
import { createMetricsRegistry, startOpsServer, type OpsServer } from './ops-server.ts';
import { startPruner, type PruneTask } from './pruner.ts';
import { connectRedis } from './redis.ts';
import { startTelemetry } from './telemetry.ts';

export interface RuntimeOptions<S extends z.ZodType<BaseEnv>> {
  /** Service name, used in logs, metrics, traces and connection names. */
  service: string;
  /** The Postgres schema this service owns. */
  schema: string;
  /** Folder of the service's NNN_name.sql migrations, applied at start. */
  migrations: URL;
  /** The service publishes through an outbox: the platform's table is migrated first. */
  outbox?: boolean;
  /** The service's environment schema (BaseEnv extended). */
  env: S;
  /**
   * Whether the service uses Redis (then /readyz checks it too). `degradable`: the
   * service works on without it (rate limits fail open, locks fall back to Postgres),
   * so a Redis outage shows in /readyz as `degraded` but keeps the pods in rotation.
   */
  redis?: boolean | 'degradable';
  /**
   * Whether the service uses JetStream (streams, consumers, buckets): it then watches
   * that JetStream answers through its NATS server, and moves when it does not.
   */
  jetstream?: boolean;
  /** Whether SIGTERM/SIGINT stop the service (off for in-process tests). */
  handleSignals?: boolean;
  /** Where the log goes: stdout, unless a test reads the lines. */
  logDestination?: LogDestination;
}

export interface Runtime<C extends BaseEnv> {
  readonly config: C;
  readonly logger: Logger;
  readonly sql: Sql;
  readonly nats: NatsConnection;
  readonly redis: Redis | undefined;
  readonly ops: OpsServer;
  /** Registers a step that stops taking work (HTTP listener, RPC subscription). */
  onStop(step: () => Promise<void>): void;
  /**
   * Prunes what has aged out, every PRUNE_INTERVAL_MS in small batches; stops first
   * when the service stops.
   */
  prune(tasks: PruneTask[]): void;
  /** Graceful shutdown: stop intake, finish what was taken, then close connections. */
  stop(): Promise<void>;
}

/** How often a JetStream service asks whether JetStream answers through its server. */
const JETSTREAM_LOOK_EVERY_MS = 1_000;

/**
 * Everything a service needs before its handlers start: config, logs, traces,
 * Postgres with its migrations applied, NATS, Redis when asked for, the ops port and
 * graceful shutdown. A service's main.ts calls this and wires its handlers.
 */
export async function startRuntime<S extends z.ZodType<BaseEnv>>(
  options: RuntimeOptions<S>,
  env: Record<string, string | undefined> = process.env,
): Promise<Runtime<z.infer<S>>> {
  const config = loadConfig(options.env, env);
  const logger = createLogger(options.service, config.LOG_LEVEL, options.logDestination);
  const telemetry = await startTelemetry(options.service, config.OTEL_EXPORTER_OTLP_ENDPOINT);
  const sql = connectPostgres(config.DATABASE_URL, options.schema, config.DATABASE_POOL_SIZE);
  await migrate(sql, options.schema, options.migrations, logger, {
    outbox: options.outbox ?? false,
  });
  // As its own NATS user when the environment names one: the server then lets it
  // publish and subscribe only where its role needs (docs/nats-security.md).
  const nats = await connectNats(config.NATS_URL, `dzpay-${options.service}`, natsAccessOf(config));
  const redis = options.redis
    ? connectRedis(config.REDIS_URL, config.REDIS_PREFIX, { log: logger })
    : undefined;

  const commits = commitProbe(config.DATABASE_URL);
  const registry = createMetricsRegistry(options.service);
  const metrics = platformMetrics(registry, { consumerStallMs: config.CONSUMER_STALL_MS, logger });
  bindMetrics(nats, metrics);
  const jetStream = options.jetstream
    ? jetStreamWatch({
        look: connectionLook(nats),
        logger,
        moveAfterMs: config.JETSTREAM_MOVE_AFTER_MS,
        servers: config.NATS_URL.split(',').length,
      })
    : undefined;
  const jetStreamTimer = jetStream
    ? setInterval(() => void jetStream.check(), JETSTREAM_LOOK_EVERY_MS).unref()
    : undefined;
  const ops = await startOpsServer({
    host: config.OPS_HOST,
    port: config.OPS_PORT,
    registry,
    checks: {
      postgres: () => sql`select 1`,
      // Reads may answer while no commit can be made (a synchronous standby gone):
      // degraded with the reason, so a 503 from every write is explained at a glance.
      commits: () => commits.check(),
      nats: () => nats.flush(),
      ...(redis ? { redis: () => redis.ping() } : {}),
      // A stalled consumer re-attaches by itself: degraded, not out of rotation.
      consumers: () => metrics.consumerProgress.assertMoving(),
      // A failover under way, or a server cut off that the watch moves away from.
      ...(jetStream ? { jetstream: () => jetStream.assertAnswering() } : {}),
    },
    degradable: [
      'commits',
      'consumers',
      'jetstream',
      ...(options.redis === 'degradable' ? ['redis'] : []),
    ],
  });

  const intake: (() => Promise<void>)[] = [];
  let stopping: Promise<void> | undefined;

  async function shutdown(): Promise<void> {
    ops.markDraining();
    // Intake first, in the order it was registered, so nothing new arrives while the
    // connections below are still needed to finish what was already taken.
    for (const step of intake) {
      await step().catch((err: unknown) => logger.error({ err }, 'stopping intake failed'));
    }
    metrics.consumerProgress.stop();
    clearInterval(jetStreamTimer);
    await nats.drain().catch((err: unknown) => logger.error({ err }, 'nats drain failed'));
    await redis?.quit().catch((err: unknown) => logger.error({ err }, 'redis quit failed'));
    await sql.end({ timeout: 5 });
    await commits.close();
    await ops.close();
    await telemetry.shutdown();
    logger.info('stopped');
  }

  const runtime: Runtime<z.infer<S>> = {
    config,
    logger,
    sql,
    nats,
    redis,
    ops,
    onStop: (step) => intake.push(step),
    prune(tasks) {
      const pruner = startPruner({ tasks, logger, intervalMs: config.PRUNE_INTERVAL_MS });
      intake.unshift(() => pruner.stop());
    },
    stop: () => (stopping ??= shutdown()),
  };

  if (options.handleSignals ?? true) {
    let signalled = false;
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      // `on`, not `once`: a second signal during the drain must not kill the process
      // with the default action; it is ignored, the deadline below still holds.
      process.on(signal, () => {
        if (signalled) return;
        signalled = true;
        logger.info({ signal }, 'shutting down');
        const deadline = setTimeout(() => {
          logger.error('shutdown timed out');
          process.exit(1);
        }, config.SHUTDOWN_TIMEOUT_MS);
        deadline.unref();
        runtime.stop().then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      });
    }
  }
  logger.info({ opsPort: ops.port }, 'runtime ready');
  return runtime;
}
