import { execFile } from 'node:child_process';
import { appendFile, chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { spawnProcess, type SpawnedProcess } from './child-process.ts';
import type { LabHost, NetLab } from './netlab.ts';
import { freePort } from './processes.ts';
import { findBinary } from './server-process.ts';

// Deliberately free of vitest: the fault campaign starts a pair from a plain `node` CLI.

const run = promisify(execFile);

/** One Postgres server of the pair: its port and data directory, and its process while it runs. */
interface PairNode {
  /** Where the harness reaches it: 127.0.0.1, or its host's address in a lab. */
  address: string;
  port: number;
  dir: string;
  host: LabHost | null;
  process?: SpawnedProcess;
}

/** What one failover cost, measured from the primary's SIGKILL. */
export interface FailoverTimings {
  /** Until the standby answered as a primary. */
  promotedAfterMs: number;
  /** Until a write committed again (on a synchronous pair: once the new standby streams). */
  writableAfterMs: number;
}

export interface PostgresPair {
  /**
   * The URL services get: both servers, the writable one chosen at each connect
   * (`target_session_attrs=primary`: postgres.js's `read-write` takes a hot standby on
   * Postgres 14+ for writable, as it checks only `default_transaction_read_only`).
   * In a lab, `addressOf` may name another address of each server's host (one a fault
   * can cut for one client only).
   */
  url(database: string, addressOf?: (host: LabHost) => string): string;
  /** Each server's host, when the pair runs in a lab. */
  readonly hosts: readonly LabHost[];
  /** A URL of the server that takes writes now (for a harness' admin work). */
  primaryUrl(database: string): string;
  /**
   * Stops the WAL reaching the standby: the primary's commits then wait for it. In a lab
   * the link between the two is cut (what was sent is lost with the primary, as on a real
   * network); on loopback the standby is SIGSTOPped, and what its socket already holds
   * still reaches it when it runs again.
   */
  stallReplication(): Promise<void>;
  resumeReplication(): Promise<void>;
  /**
   * A failover as an operator (CloudNativePG, Patroni) does it: the primary's machine is
   * lost (every process SIGKILLed), the standby is promoted, and the old primary's
   * directory is rebuilt from the new primary as the new synchronous standby.
   */
  failover(options?: { replicationStalledMs?: number }): Promise<FailoverTimings>;
  /** What the servers logged (the last ~200 KB of each). */
  output(): string;
  stop(): Promise<void>;
}

/** Settings both servers start with; the standby's directory copies them. */
export interface PairSettings {
  /** Each server in a host of this lab (its own namespace and address). */
  network?: NetLab;
  /**
   * Which standbys a commit waits for before it is acknowledged: `'*'` (any one, the
   * default: nothing acknowledged is lost with the primary) or `''` (asynchronous).
   */
  synchronousStandbyNames?: string;
}

const READY_TIMEOUT_MS = 30_000;

/**
 * A primary and a synchronous streaming standby of Debian's PostgreSQL on loopback ports,
 * in a directory of their own, run as the `postgres` user when this process is root
 * (Postgres refuses root). Each server runs in a process group of its own, so a
 * "lost machine" takes its backends and WAL sender with it.
 */
export async function startPostgresPair(settings: PairSettings = {}): Promise<PostgresPair> {
  const base = await mkdtemp(join(tmpdir(), 'dzpay-pg-pair-'));
  const owner = await postgresUser();
  if (owner) await chown(base, owner.uid, owner.gid);
  const node = async (name: string): Promise<PairNode> => {
    const host = (await settings.network?.addHost(`pg-${name}`)) ?? null;
    return host
      ? { address: host.address, port: 5432, dir: join(base, name), host }
      : { address: '127.0.0.1', port: await freePort(), dir: join(base, name), host };
  };
  const nodes: [PairNode, PairNode] = [await node('a'), await node('b')];
  let primary = 0;
  let stopped = false;
  let log = '';
  const bin = async (name: string) => join(await binDir(), name);
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};

  const start = async (node: PairNode): Promise<void> => {
    const server = [await bin('postgres'), '-D', node.dir, '-c', `port=${node.port}`];
    // In a namespace, `ip netns exec` needs root: the server drops to postgres by setpriv,
    // which execs (the pid stays the server's).
    const dropRoot = owner
      ? ['setpriv', `--reuid=${owner.uid}`, `--regid=${owner.gid}`, '--clear-groups']
      : [];
    const command = node.host
      ? ['ip', 'netns', 'exec', node.host.ns, ...dropRoot, ...server]
      : server;
    node.process = spawnProcess({
      name: `postgres:${node.address}:${node.port}`,
      command: command[0]!,
      args: command.slice(1),
      detached: true,
      ...(node.host ? {} : { uid: owner?.uid, gid: owner?.gid }),
      onOutput: (text) => (log = (log + text).slice(-200_000)),
    });
    await until(`postgres at ${node.address}:${node.port} answers`, () => answers(node));
  };

  const loseMachine = async (node: PairNode): Promise<void> => {
    const pid = node.process?.pid;
    if (pid === undefined || !node.process?.running) return;
    // Every process at once: the postmaster, its backends, its WAL sender or receiver.
    await signalFamily(pid, 'SIGKILL');
    await node.process.exited();
  };

  const cloneStandby = async (target: PairNode, from: PairNode): Promise<void> => {
    await rm(target.dir, { recursive: true, force: true });
    await run(
      await bin('pg_basebackup'),
      [
        ...['-h', from.address, '-p', String(from.port), '-U', 'postgres'],
        ...['-D', target.dir, '-R', '--checkpoint=fast'],
      ],
      { ...asOwner, env: { ...process.env, PGAPPNAME: `standby-${target.port}` } },
    );
    await start(target);
    await until('the standby streams synchronously', () => streamsSync(from, settings));
  };

  try {
    await run(
      await bin('initdb'),
      ['-D', nodes[0].dir, '-U', 'postgres', '--auth=trust', '--locale=C.UTF-8', '--no-sync'],
      asOwner,
    );
    // The lab's addresses (10.x) may connect, and replicate, as the machine's loopback may.
    await appendFile(
      join(nodes[0].dir, 'pg_hba.conf'),
      'host all all 10.0.0.0/8 trust\nhost replication all 10.0.0.0/8 trust\n',
    );
    await appendFile(
      join(nodes[0].dir, 'postgresql.conf'),
      [
        `listen_addresses = '${nodes[0].host ? '*' : '127.0.0.1'}'`,
        // TCP only: two servers of a lab share the file system and the port number.
        "unix_socket_directories = ''",
        'max_connections = 300',
        'wal_level = replica',
        'max_wal_senders = 10',
        // A SIGKILL loses no page cache: the test's "machine loss" is a process group's.
        'fsync = off',
        // A standby whose primary vanished retries every 5 s by default, and the
        // promotion waits out that sleep.
        "wal_retrieve_retry_interval = '100ms'",
        `synchronous_standby_names = '${settings.synchronousStandbyNames ?? '*'}'`,
        '',
      ].join('\n'),
    );
    await start(nodes[0]);
    await cloneStandby(nodes[1], nodes[0]);
  } catch (error) {
    await Promise.allSettled(nodes.map(loseMachine));
    await rm(base, { recursive: true, force: true });
    throw new Error(`the Postgres pair did not start: ${String(error)}\n${log}`, { cause: error });
  }

  const signalStandby = async (signal: NodeJS.Signals) => {
    const pid = nodes[1 - primary]!.process?.pid;
    if (pid !== undefined) await signalFamily(pid, signal);
  };
  let mend: (() => Promise<void>) | null = null;
  const stall = async () => {
    const [a, b] = nodes;
    if (settings.network && a.host && b.host) mend ??= await settings.network.cut(a.host, b.host);
    else await signalStandby('SIGSTOP');
  };
  const resume = async () => {
    await mend?.();
    mend = null;
    await signalStandby('SIGCONT');
  };

  return {
    url(database, addressOf) {
      const hosts = nodes.map(
        (n) => `${n.host && addressOf ? addressOf(n.host) : n.address}:${n.port}`,
      );
      return `postgres://postgres@${hosts.join(',')}/${database}?target_session_attrs=primary`;
    },
    hosts: nodes.flatMap((n) => (n.host ? [n.host] : [])),
    primaryUrl: (database) =>
      `postgres://postgres@${nodes[primary]!.address}:${nodes[primary]!.port}/${database}`,
    stallReplication: stall,
    resumeReplication: resume,
    async failover(options = {}) {
      const standby = nodes[1 - primary]!;
      const old = nodes[primary]!;
      if (options.replicationStalledMs) {
        await stall();
        await sleep(options.replicationStalledMs);
      }
      const killedAt = Date.now();
      await loseMachine(old);
      // A stalled standby (stallReplication) is the one promoted: it is reachable first.
      await resume();
      // Asked again until it is a primary: on a loaded machine one connection may time out.
      await until('the standby is promoted', () => promoted(standby));
      primary = 1 - primary;
      const promotedAfterMs = Date.now() - killedAt;
      // Nothing commits on a synchronous primary until a standby streams again.
      const writable = until('the new primary commits', () => commits(standby));
      await cloneStandby(old, standby);
      await writable;
      return { promotedAfterMs, writableAfterMs: Date.now() - killedAt };
    },
    output: () => log,
    async stop() {
      if (stopped) return;
      stopped = true;
      await resume();
      await Promise.allSettled(nodes.map(loseMachine));
      await rm(base, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/**
 * Signals the postmaster and its children. Each child of a postmaster calls setsid(), so
 * its process group holds the postmaster alone: the children are found by their parent.
 */
async function signalFamily(pid: number, signal: NodeJS.Signals): Promise<void> {
  const children: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …: comm may hold spaces, so read after its closing paren.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) children.push(Number(entry));
  }
  for (const target of [pid, ...children]) {
    try {
      process.kill(target, signal);
    } catch {
      // exited meanwhile
    }
  }
}

/** Debian keeps the server's programs out of PATH, under its major version. */
async function binDir(): Promise<string> {
  try {
    const pgConfig = await findBinary('pg_config');
    const { stdout } = await run(pgConfig, ['--bindir']);
    return stdout.trim();
  } catch {
    const { stdout } = await run('sh', [
      '-c',
      'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1',
    ]);
    return stdout.trim();
  }
}

async function postgresUser(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const [uid, gid] = await Promise.all(
    ['-u', '-g'].map(async (flag) => Number((await run('id', [flag, 'postgres'])).stdout.trim())),
  );
  return { uid: uid!, gid: gid! };
}

async function withClient<T>(node: PairNode, use: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres({
    host: node.address,
    port: node.port,
    user: 'postgres',
    database: 'postgres',
    max: 1,
    connect_timeout: 2,
    onnotice: () => {},
  });
  try {
    return await use(sql);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

const answers = (node: PairNode) =>
  withClient(node, (sql) => sql`select 1`).then(
    () => true,
    () => false,
  );

/** Promotes the server unless it is a primary already; answers whether it is one now. */
const promoted = (node: PairNode) =>
  withClient(node, async (sql) => {
    const [state] = await sql<{ recovering: boolean }[]>`select pg_is_in_recovery() as recovering`;
    if (!state?.recovering) return true;
    const [done] = await sql<{ promoted: boolean }[]>`select pg_promote(true, 60) as promoted`;
    return done?.promoted === true;
  }).catch(() => false);

/** A transaction that takes an xid commits only once the synchronous standby has it. */
const commits = (node: PairNode) =>
  withClient(node, async (sql) => {
    await sql`select txid_current()`;
    return true;
  }).catch(() => false);

const streamsSync = (primary: PairNode, settings: PairSettings) =>
  withClient(primary, async (sql) => {
    const rows = await sql<{ sync_state: string }[]>`select sync_state from pg_stat_replication`;
    const want = (settings.synchronousStandbyNames ?? '*') === '' ? 'async' : 'sync';
    return rows.some((row) => row.sync_state === want);
  }).catch(() => false);

async function until(what: string, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`${what}: not after ${READY_TIMEOUT_MS} ms`);
    await sleep(100);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
