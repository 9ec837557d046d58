import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, connectPostgres, type NatsConnection } from '@dzpay/platform';
import { entryOf, linkEnv, SANDBOX, type ServiceName, type StackLinks } from '@dzpay/stack';
import { runAdminCli } from '@dzpay/testkit/processes';
import { pidsNamed, type ProcessRef } from './cpu.ts';
import { freePort, startBenchProcess, type BenchProcess } from './processes.ts';
import { settings } from './settings.ts';

// The stack `pnpm bench` measures: dzpay's services as child processes over a database,
// a NATS prefix and a Redis prefix of the run's own, so it can run beside the tests or
// `pnpm start`. See docs/benchmarks.md.

/** Every bench gateway: limiters that count but never refuse. */
export const GATEWAY_ENV = {
  HTTP_HOST: '127.0.0.1',
  RATE_LIMIT_PER_MINUTE: '100000000',
  STATUS_RATE_LIMIT_PER_MINUTE: '100000000',
};

/** What start() started. */
export interface RunningStack {
  nats: NatsConnection;
  /** The gateway's public base URL. */
  publicBaseUrl: string;
  /** The processes whose CPU time each measured run reads from /proc. */
  cpu: Record<string, ProcessRef>;
  /** The services behind the gateway on the redis-down rows' paths. */
  pids: { 'qr-config': number; status: number };
}

export interface BenchStack {
  /** This run's database. */
  databaseUrl: string;
  natsUrl: string;
  natsPrefix: string;
  /**
   * Creates the database, connects to NATS and starts qr-config, the card network
   * sandbox, payments, status and the gateway, each ready before the next.
   */
  start(): Promise<RunningStack>;
  /** A service of the stack, linked to this run's gateway, sandbox and secrets key. */
  startService(name: ServiceName, extra?: Record<string, string>): Promise<BenchProcess>;
  /** Any other process of the run (a reference server), stopped at cleanup at the latest. */
  startProcess(
    name: string,
    entry: string,
    env: Record<string, string>,
    readyUrl: string,
  ): Promise<BenchProcess>;
  /** A server of this process (a partner) closed at cleanup. */
  closeAtCleanup(server: { close(): Promise<void> }): void;
  /** Why processes of the run ended on their own, if any did: the measurement is void. */
  failures(): string[];
  /** The admin CLI over this run's database and NATS, with its secrets key. */
  cli<T>(...args: string[]): Promise<T>;
  /** Stops every process and server, deletes the run's streams and drops its database. */
  cleanup(): Promise<void>;
}

/**
 * `natsUrl` replaces BENCH_NATS_URL (the failover scenario's cluster), `env` adds to every
 * service's and the CLI's environment (STREAM_REPLICAS=3 there).
 */
export function benchStack(
  options: { natsUrl?: string; env?: Record<string, string> } = {},
): BenchStack {
  const id = randomBytes(4).toString('hex');
  const database = `dzpay_bench_${id}`;
  const databaseUrl = new URL(settings.adminPostgresUrl);
  databaseUrl.pathname = `/${database}`;
  // Seals the product partner's API secret (CLI) and opens it (gateway).
  const secretsKey = randomBytes(32).toString('base64');
  const serviceEnv = {
    DATABASE_URL: databaseUrl.href,
    NATS_URL: options.natsUrl ?? settings.natsUrl,
    NATS_PREFIX: `bench_${id}`,
    REDIS_URL: settings.redisUrl,
    // Only rate-limit counters land here; they expire with their one-minute window.
    REDIS_PREFIX: `bench:${id}:`,
    OPS_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  const admin = connectPostgres(settings.adminPostgresUrl, 'public', 1);
  const children: BenchProcess[] = [];
  const servers: { close(): Promise<void> }[] = [];
  /** How this run's services reach each other (set once the ports are known). */
  let links: StackLinks | undefined;
  let nats: NatsConnection | undefined;
  let cleaning: Promise<void> | undefined;

  const startProcess: BenchStack['startProcess'] = async (...args) => {
    const started = await startBenchProcess(...args);
    children.push(started);
    return started;
  };

  const startService: BenchStack['startService'] = async (name, extra = {}) => {
    const opsPort = await freePort();
    if (!links) throw new Error('the stack links are set before any service starts');
    return startProcess(
      name,
      entryOf(name),
      { ...serviceEnv, ...linkEnv(name, links), ...extra, OPS_PORT: String(opsPort) },
      `http://127.0.0.1:${opsPort}/readyz`,
    );
  };

  /** The streams the services created under the bench's prefix, with their events. */
  const deleteStreams = async (nc: NatsConnection): Promise<void> => {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      // KV_<prefix>_PARTNERS: the partner directory bucket the webhooks scenario wrote.
      const ours = [`${serviceEnv.NATS_PREFIX}_`, `KV_${serviceEnv.NATS_PREFIX}_`];
      if (ours.some((start) => name.startsWith(start))) await jsm.streams.delete(name);
    }
  };

  return {
    databaseUrl: databaseUrl.href,
    natsUrl: serviceEnv.NATS_URL,
    natsPrefix: serviceEnv.NATS_PREFIX,
    async start() {
      await admin.unsafe(`create database "${database}"`);
      nats = await connectNats(serviceEnv.NATS_URL, 'bench');
      const httpPort = await freePort();
      const publicBaseUrl = `http://127.0.0.1:${httpPort}`;
      // The card network sandbox answers at once (no delay): the bench measures dzpay.
      const sandboxPort = await freePort();
      const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
      links = { gatewayUrl: publicBaseUrl, sandboxUrl, secretsKey };
      const qrConfig = await startService('qr-config');
      const sandbox = await startProcess(
        SANDBOX,
        entryOf(SANDBOX),
        { SANDBOX_PORT: String(sandboxPort), SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
        `${sandboxUrl}/healthz`,
      );
      const payments = await startService('payments');
      const status = await startService('status');
      // The gateway opens the product partner's secret for the full-path lag (/pay pages).
      const gateway = await startService('gateway', {
        HTTP_PORT: String(httpPort),
        ...GATEWAY_ENV,
      });
      const cpu: Record<string, ProcessRef> = {
        gateway: gateway.pid,
        'qr-config': qrConfig.pid,
        payments: payments.pid,
        status: status.pid,
        sandbox: sandbox.pid,
        // The machine's servers, every process of each (Postgres has one per connection).
        postgres: () => pidsNamed('postgres'),
        nats: () => pidsNamed('nats-server'),
        redis: () => pidsNamed('redis-server'),
        // autocannon runs in this process: the load generator's share of the cores.
        bench: process.pid,
      };
      return { nats, publicBaseUrl, cpu, pids: { 'qr-config': qrConfig.pid, status: status.pid } };
    },
    startService,
    startProcess,
    closeAtCleanup: (server) => void servers.push(server),
    failures: () => children.map((child) => child.failure()).filter((why) => why !== undefined),
    cli: <T>(...args: string[]) =>
      runAdminCli<T>(
        {
          ...serviceEnv,
          SECRETS_KEY: secretsKey,
          PARTNER_API_SECRET: randomBytes(24).toString('base64url'),
        },
        args,
      ),
    cleanup: () =>
      (cleaning ??= (async () => {
        for (const child of children.reverse()) await child.stop();
        for (const server of servers) await server.close();
        if (nats) await deleteStreams(nats);
        await nats?.close();
        await admin.unsafe(`drop database if exists "${database}" with (force)`);
        await admin.end();
      })()),
  };
}
