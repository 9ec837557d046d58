// What `pnpm bench` is told through its environment (docs/benchmarks.md lists every
// variable), read once.

const env = process.env;

function positiveInt(name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const ONLY = ['redis-down', 'payments-list', 'paths', 'failover', 'status-failover'] as const;

/**
 * BENCH_ONLY: one scenario alone (redis-down, payments-list, failover, status-failover),
 * the paths without redis-down and payments-list (paths), or every scenario but the two
 * failover ones when unset (each starts a NATS cluster of its own).
 */
function benchOnly(): (typeof ONLY)[number] | undefined {
  const value = env.BENCH_ONLY;
  if (value === undefined || value === '') return undefined;
  const known = ONLY.find((only) => only === value);
  if (known) return known;
  throw new Error(
    `BENCH_ONLY must be ${ONLY.join(', ')} (or unset for every scenario), not ${value}`,
  );
}

const SIGNALS = ['SIGKILL', 'SIGTERM'] as const;

/**
 * BENCH_FAILOVER_SIGNALS: how the failover scenario stops a leading NATS node, in order,
 * comma-separated: SIGKILL (its loss) and SIGTERM (a graceful shutdown).
 */
function failoverSignals(): (typeof SIGNALS)[number][] {
  const names = (env.BENCH_FAILOVER_SIGNALS ?? SIGNALS.join(',')).split(',');
  return names.map((name) => {
    const signal = SIGNALS.find((known) => known === name.trim());
    if (!signal) throw new Error(`BENCH_FAILOVER_SIGNALS takes ${SIGNALS.join(', ')}, not ${name}`);
    return signal;
  });
}

export const settings = {
  seconds: positiveInt('BENCH_SECONDS', 10),
  warmupSeconds: positiveInt('BENCH_WARMUP_SECONDS', 3),
  connections: positiveInt('BENCH_CONNECTIONS', 10),
  qrCodes: positiveInt('BENCH_QR_CODES', 50),
  statusReferences: positiveInt('BENCH_STATUS_REFERENCES', 40),
  lagSamples: positiveInt('BENCH_LAG_SAMPLES', 300),
  lagGapMs: positiveInt('BENCH_LAG_GAP_MS', 5),
  webhookEvents: positiveInt('BENCH_WEBHOOK_EVENTS', 3_000),
  webhookWarmup: positiveInt('BENCH_WEBHOOK_WARMUP', 300),
  webhookConcurrency: positiveInt('BENCH_WEBHOOK_CONCURRENCY', 64),
  listPayments: positiveInt('BENCH_LIST_PAYMENTS', 1_000_000),
  only: benchOnly(),
  burstEvents: positiveInt('BENCH_BURST_EVENTS', 3_000),
  /** Leader losses per path and per signal in the failover scenario. */
  failoverKills: positiveInt('BENCH_FAILOVER_KILLS', 10),
  failoverSignals: failoverSignals(),
  /** Status-replica kills, and as many PAYMENTS-leader kills, in the status-failover scenario. */
  statusFailoverKills: positiveInt('BENCH_STATUS_FAILOVER_KILLS', 10),
  /** Product references paid at once (one payer each) in the status-failover scenario. */
  statusFailoverReferences: positiveInt('BENCH_STATUS_FAILOVER_REFERENCES', 30),
  adminPostgresUrl: env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222',
  redisUrl: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
} as const;
