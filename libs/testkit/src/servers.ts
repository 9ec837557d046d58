import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Redis, type RedisOptions } from 'ioredis';
import { freePort } from './processes.ts';
import { launchServer, type LocalServer } from './server-process.ts';

// Deliberately free of vitest: a fault campaign runs these from a plain `node` CLI.
export type { LocalServer } from './server-process.ts';

export interface LocalNatsServer extends LocalServer {
  /** JetStream's files, kept across kill() and restart(). */
  readonly storeDir: string;
}

export interface LocalRedisServer extends LocalServer {
  /** Empties every database of this server (never the machine's shared one). */
  flushAll(): Promise<void>;
}

/** Credentials the harness connects with to a secured server (its unrestricted user). */
export interface NatsProbeAuth {
  user: string;
  password: string;
}

/**
 * A nats-server of our own with JetStream on 127.0.0.1: a free port unless told, and a
 * fresh store directory unless told (then stop() leaves that directory alone). With an
 * `authorization` block (libs/stack's generator), it runs from a configuration file
 * that requires a user on every connection; `probe` is the user the harness checks
 * readiness as.
 */
export async function startNatsServer(
  options: {
    port?: number;
    storeDir?: string;
    name?: string;
    authorization?: string;
    probe?: NatsProbeAuth;
    /** Out of reach of a terminal's Ctrl-C (see ServerLaunch.ownProcessGroup). */
    ownProcessGroup?: boolean;
  } = {},
): Promise<LocalNatsServer> {
  const port = options.port ?? (await freePort());
  const storeDir = options.storeDir ?? (await mkdtemp(join(tmpdir(), 'dzpay-nats-')));
  const name = options.name ?? `dzpay-nats-${randomBytes(4).toString('hex')}`;
  const url = `nats://127.0.0.1:${port}`;
  const ownedDirs = options.storeDir ? [] : [storeDir];
  let args = ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port), '-n', name];
  if (options.authorization !== undefined) {
    // Beside the store, never inside it: JetStream owns that directory.
    const configDir = await mkdtemp(join(tmpdir(), 'dzpay-nats-conf-'));
    ownedDirs.push(configDir);
    const config = join(configDir, 'nats.conf');
    await writeFile(
      config,
      natsServerConfig({ name, port, storeDir, authorization: options.authorization }),
      { mode: 0o600 },
    );
    args = ['-c', config];
  }
  const server = await launchServer({
    binary: 'nats-server',
    url,
    port,
    args,
    ownedDirs,
    answers: () => natsAnswers(url, name, options.probe),
    ...(options.ownProcessGroup ? { ownProcessGroup: true } : {}),
  });
  return Object.assign(server, { storeDir });
}

/**
 * A secured nats-server: every client must log in as one of the users of the
 * `authorization` block, each limited to its role's subjects (docs/nats-security.md).
 */
export function startSecuredNatsServer(options: {
  authorization: string;
  probe: NatsProbeAuth;
  port?: number;
  storeDir?: string;
  name?: string;
  ownProcessGroup?: boolean;
}): Promise<LocalNatsServer> {
  return startNatsServer(options);
}

/** The configuration file of one server: JetStream, and its users and routes when given. */
export function natsServerConfig(options: {
  name: string;
  /** The address it listens on (127.0.0.1 unless it lives in a namespace of a lab). */
  host?: string;
  port: number;
  storeDir: string;
  authorization?: string;
  /** The cluster block's lines, without the braces. */
  cluster?: string[];
}): string {
  return [
    `server_name: ${JSON.stringify(options.name)}`,
    `listen: "${options.host ?? '127.0.0.1'}:${options.port}"`,
    `jetstream { store_dir: ${JSON.stringify(options.storeDir)} }`,
    ...(options.cluster ? ['cluster {', ...options.cluster.map((l) => `  ${l}`), '}'] : []),
    options.authorization ?? '',
    '',
  ].join('\n');
}

/** The harness' connection for one check (`servers` comma-separated): no reconnects, a second to connect. */
export function connectAsProbe(servers: string, auth?: NatsProbeAuth): Promise<NatsConnection> {
  return connect({
    servers: servers.split(','),
    reconnect: false,
    timeout: 1_000,
    ...(auth ? { user: auth.user, pass: auth.password } : {}),
  });
}

/**
 * Our server (by name), with JetStream enabled and its streams recovered (on a
 * cluster: its meta leader elected).
 */
export async function natsAnswers(
  url: string,
  name: string,
  auth?: NatsProbeAuth,
): Promise<boolean> {
  const nc = await connectAsProbe(url, auth);
  try {
    if (nc.info?.server_name !== name) return false;
    const jsm = await jetstreamManager(nc, { timeout: 1_000 });
    await jsm.getAccountInfo();
    return true;
  } finally {
    await nc.close();
  }
}

/** A redis-server of our own on 127.0.0.1, in memory only (no RDB, no AOF). */
export async function startRedisServer(options: { port?: number } = {}): Promise<LocalRedisServer> {
  const port = options.port ?? (await freePort());
  // Redis writes nothing with these settings, but its working directory must not be ours.
  const dir = await mkdtemp(join(tmpdir(), 'dzpay-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  const server = await launchServer({
    binary: 'redis-server',
    url,
    port,
    args: [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--dir',
      dir,
    ],
    ownedDirs: [dir],
    answers: (pid) => redisAnswers(url, pid),
  });
  return Object.assign(server, {
    async flushAll() {
      await withRedis(url, {}, (redis) => redis.flushall());
    },
  });
}

/** Our server (by process id) answers PING, which it refuses while it still loads. */
async function redisAnswers(url: string, pid: number): Promise<boolean> {
  return withRedis(url, { commandTimeout: 1_000 }, async (redis) => {
    await redis.ping();
    const info = await redis.info('server');
    return new RegExp(`^process_id:${pid}\\r?$`, 'm').test(info);
  });
}

async function withRedis<T>(
  url: string,
  options: RedisOptions,
  use: (redis: Redis) => Promise<T>,
): Promise<T> {
  // No retries: a server that is down must fail fast instead of queueing commands.
  const redis = new Redis(url, {
    ...options,
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}
