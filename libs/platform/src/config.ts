import { z } from 'zod';

const DAY_MS = 24 * 3600 * 1000;

/** A postgres:// URL whose host part may list several `host:port`, comma-separated. */
function PostgresUrl() {
  return z.string().refine((value) => {
    const match = /^postgres(?:ql)?:\/\/(?:[^@/]*@)?([^/?#]*)/.exec(value);
    if (!match?.[1]) return false;
    const hosts = match[1].split(',');
    return hosts.every((host) => URL.canParse(value.replace(match[1]!, host)));
  }, 'a postgres:// URL, with one host or several comma-separated');
}

/**
 * Variables every service reads. Defaults point at the services of a developer's
 * machine so `pnpm start` works without an .env file; production sets them all.
 */
export const BaseEnv = z.object({
  /** pino level: trace, debug, info, warn, error, fatal, silent. */
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  /**
   * Postgres holding every service's schema (each service touches only its own). Several
   * hosts (`postgres://u@h1:5432,h2:5432/dzpay?target_session_attrs=primary`) let a
   * connection find the primary after a failover (docs/failover.md).
   */
  DATABASE_URL: PostgresUrl().default('postgres://postgres@127.0.0.1:5432/dzpay'),
  /** Connections this process may open to Postgres. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** NATS server(s), comma-separated. */
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  /**
   * This service's NATS user and password (docs/nats-security.md). Unset, the service
   * connects without authenticating: the unauthenticated NATS of in-process tests and
   * `bench`. Set, its reply inboxes are `_INBOX_<user>.>`, the only inboxes the
   * server lets that user read.
   */
  NATS_USER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  /**
   * TLS to NATS (production): the CA that signed the servers' certificate, and this
   * client's certificate and key when the servers verify clients. Any of them, or a
   * `tls://` server URL, makes the connection refuse a server without TLS.
   */
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  NATS_TLS_CERT_FILE: z.string().min(1).optional(),
  NATS_TLS_KEY_FILE: z.string().min(1).optional(),
  /** Prefix of every NATS subject and JetStream stream name: isolates environments and test runs. */
  NATS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('dzpay'),
  /** Redis for rate limits and fast locks: only data that can be rebuilt. */
  REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
  /**
   * Copies of each JetStream stream a clustered NATS keeps (3 in production: a stream
   * survives losing a server). Every service reads it, so none sets the streams back.
   */
  STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * A durable consumer that has not moved for this long while messages wait for it is
   * stalled: its reader re-attaches, and /readyz says degraded until it moves.
   */
  CONSUMER_STALL_MS: z.coerce.number().int().min(1_000).default(30_000),
  /**
   * How long JetStream may not answer through the NATS server this process is on before
   * it moves to another of NATS_URL's (a node cut from its peers keeps its clients and
   * gives them nothing). Longer than a Raft election (4 to 9 s), so failovers move nobody.
   */
  JETSTREAM_MOVE_AFTER_MS: z.coerce.number().int().min(1_000).default(12_000),
  /** Prefix of every Redis key this deployment writes. */
  REDIS_PREFIX: z.string().default('dzpay:'),
  /** Port of /healthz, /readyz and /metrics; 0 picks a free port. */
  OPS_PORT: z.coerce.number().int().min(0).max(65535),
  /** Address the ops port binds to. */
  OPS_HOST: z.string().default('0.0.0.0'),
  /** OTLP/HTTP endpoint for traces; unset means tracing stays off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** How long a graceful shutdown may take before the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /**
   * Age after which JetStream drops a stream's messages (PAYMENTS, WEBHOOKS). Replays
   * (a new consumer, a status rebuild) reach back this far; Postgres keeps the truth.
   */
  STREAM_MAX_AGE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(30 * DAY_MS),
  /** Published outbox rows are kept this long (for looking into a publish), then pruned. */
  OUTBOX_RETENTION_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(7 * DAY_MS),
  /**
   * Records that make a redelivered event change nothing (processed event ids, webhook
   * deliveries) are kept this long; it must exceed STREAM_MAX_AGE_MS, or a replay of
   * the stream would meet events whose record is gone and act on them again.
   */
  DEDUP_RETENTION_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(45 * DAY_MS),
  /** How often aged-out rows are pruned (in small batches). */
  PRUNE_INTERVAL_MS: z.coerce.number().int().min(1_000).default(60_000),
});
export type BaseEnv = z.infer<typeof BaseEnv>;

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once at start. Problems name the variable and the rule, never
 * the value: a mistyped secret must not end up in a log.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) {
    const problems = crossChecks(parsed.data);
    if (problems.length > 0) throw new ConfigError(problems);
    return parsed.data;
  }
  throw new ConfigError(
    parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
  );
}

/** Rules between variables, which a per-variable schema cannot state. */
function crossChecks(config: unknown): string[] {
  const c = config as Partial<BaseEnv>;
  const problems: string[] = [];
  const { STREAM_MAX_AGE_MS: streamAge, DEDUP_RETENTION_MS: dedup } = c;
  if (streamAge !== undefined && dedup !== undefined && dedup <= streamAge) {
    problems.push(
      'DEDUP_RETENTION_MS: must exceed STREAM_MAX_AGE_MS (a replay would repeat events)',
    );
  }
  // Half a credential would connect anonymously, or fail with a less helpful error.
  if ((c.NATS_USER === undefined) !== (c.NATS_PASSWORD === undefined)) {
    problems.push('NATS_USER, NATS_PASSWORD: set both or neither');
  }
  if ((c.NATS_TLS_CERT_FILE === undefined) !== (c.NATS_TLS_KEY_FILE === undefined)) {
    problems.push('NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE: set both or neither');
  }
  return problems;
}
