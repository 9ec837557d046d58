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
  /** a or b: the name of its directory and of its log. */
  name: string;
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
   * directory is rebuilt from the new primary as the new synchronous standby. Every step
   * is bounded and retried: a promotion that is not confirmed restarts the standby once,
   * a rebuild that fails is made again, and the old primary is rebuilt whatever the
   * promotion checks said. A pair that still cannot take writes throws PairNotHealed,
   * which says what is left; the pair is never left waiting without a word.
   */
  failover(options?: {
    replicationStalledMs?: number;
    /** What goes wrong on purpose during it (tests of the healing itself). */
    trouble?: FailoverTrouble;
  }): Promise<FailoverTimings>;
  /** What the servers logged (the last ~200 KB of each). */
  output(): string;
  stop(): Promise<void>;
}

/** What a test breaks during a failover, to see the pair heal (or say it cannot). */
export interface FailoverTrouble {
  /** Runs before each promotion check (1, 2, …): one that never ends is a hung check. */
  beforeCheck?: (attempt: number) => Promise<void>;
  /** The standby is SIGSTOPped right after the primary's loss and left so (a wedged machine). */
  standbyStopped?: boolean;
  /** The standby cannot be started again (its machine gone too): the pair cannot heal. */
  standbyWontStart?: boolean;
}

/** The pair could not be brought back to a primary that commits: the message says what is left. */
export class PairNotHealed extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PairNotHealed';
  }
}

/** Settings both servers start with; the standby's directory copies them. */
export interface PairSettings {
  /**
   * A folder for what the pair did: each server's output (`postgres-a.log`,
   * `postgres-b.log`) and every failover step with its time (`postgres-pair.log`).
   */
  logDir?: string;
  /** Each server in a host of this lab (its own namespace and address). */
  network?: NetLab;
  /** How long promotion checks are tried before the standby is restarted (20 s; tests less). */
  promoteWithinMs?: number;
  /**
   * Which standbys a commit waits for before it is acknowledged: `'*'` (any one, the
   * default: nothing acknowledged is lost with the primary) or `''` (asynchronous).
   */
  synchronousStandbyNames?: string;
}

const READY_TIMEOUT_MS = 30_000;
/** Longest one check (a connection and a query) may take before it counts as no answer. */
const CHECK_MS = 5_000;
/** How long promotion checks are tried before the standby is restarted (and then again). */
const PROMOTE_MS = 20_000;
/** How many times the old primary's directory is made again before the pair is given up. */
const REBUILD_TRIES = 3;
/** Longest a base backup of the test databases may take. */
const BASEBACKUP_MS = 120_000;

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
      ? { name, address: host.address, port: 5432, dir: join(base, name), host }
      : { name, address: '127.0.0.1', port: await freePort(), dir: join(base, name), host };
  };
  const nodes: [PairNode, PairNode] = [await node('a'), await node('b')];
  let primary = 0;
  let stopped = false;
  let log = '';
  const bin = async (name: string) => join(await binDir(), name);
  /** One line per step of the pair's life, to postgres-pair.log. */
  const step = (line: string) => {
    if (!settings.logDir) return;
    const text = `${new Date().toISOString()} ${line}\n`;
    void appendFile(join(settings.logDir, 'postgres-pair.log'), text).catch(() => {});
  };
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
      onOutput: (text) => {
        log = (log + text).slice(-200_000);
        if (settings.logDir) {
          void appendFile(join(settings.logDir, `postgres-${node.name}.log`), text).catch(() => {});
        }
      },
    });
    await until(`postgres at ${node.address}:${node.port} answers`, () => answers(node));
  };

  const loseMachine = async (node: PairNode): Promise<void> => {
    const pid = node.process?.pid;
    if (pid === undefined || !node.process?.running) return;
    // Every process at once: the postmaster, its backends, its WAL sender or receiver.
    const started = Date.now();
    await killFamily(pid);
    await node.process.exited();
    step(`${node.name}'s processes killed in ${Date.now() - started} ms`);
  };

  const cloneStandby = async (target: PairNode, from: PairNode): Promise<void> => {
    await rm(target.dir, { recursive: true, force: true });
    await run(
      await bin('pg_basebackup'),
      [
        ...['-h', from.address, '-p', String(from.port), '-U', 'postgres'],
        ...['-D', target.dir, '-R', '--checkpoint=fast'],
      ],
      {
        ...asOwner,
        env: { ...process.env, PGAPPNAME: `standby-${target.port}` },
        timeout: BASEBACKUP_MS,
      },
    );
    await start(target);
    await until('the standby streams synchronously', () => streamsSync(from, settings));
  };

  /**
   * Promotes `node` until a check confirms it is a primary: each check bounded (a hung
   * connection counts as no answer), for PROMOTE_MS. Not confirmed: its machine is
   * restarted (SIGKILL, then started again as the standby its directory says it is),
   * which frees a stopped or wedged server, and it is promoted for PROMOTE_MS more.
   */
  const promoteOrRestart = async (node: PairNode, trouble: FailoverTrouble): Promise<void> => {
    let attempt = 0;
    let last = '';
    const tryFor = async (ms: number): Promise<boolean> => {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        attempt += 1;
        const outcome = await withinMs(CHECK_MS, async () => {
          await trouble.beforeCheck?.(attempt);
          return promoteByDirectory(node, asOwner);
        });
        if (outcome === 'primary') return true;
        last = outcome ?? `no answer within ${CHECK_MS} ms`;
        step(`promotion check ${attempt} of ${node.name}: ${last}`);
        await sleep(200);
      }
      return false;
    };
    const promoteMs = settings.promoteWithinMs ?? PROMOTE_MS;
    if (await tryFor(promoteMs)) return;
    step(`promotion of ${node.name} not confirmed in ${promoteMs} ms: restarting its server`);
    await loseMachine(node);
    if (trouble.standbyWontStart) {
      throw new PairNotHealed(`the standby ${node.name} would not start again after ${last}`);
    }
    try {
      await start(node);
    } catch (error) {
      throw new PairNotHealed(`the standby ${node.name} would not start again: ${String(error)}`, {
        cause: error,
      });
    }
    if (await tryFor(promoteMs)) return;
    throw new PairNotHealed(
      `the standby ${node.name} was not promoted, even after a restart: ${last}`,
    );
  };

  /** The old primary's directory made again as `from`'s standby, tried REBUILD_TRIES times. */
  const rebuildStandby = async (target: PairNode, from: PairNode): Promise<void> => {
    let last: unknown;
    for (let attempt = 1; attempt <= REBUILD_TRIES; attempt++) {
      try {
        // What an earlier try started is lost first: one server per directory.
        await loseMachine(target);
        await cloneStandby(target, from);
        step(`${target.name} rebuilt as the standby of ${from.name} (try ${attempt})`);
        return;
      } catch (error) {
        last = error;
        step(`rebuilding ${target.name} failed (try ${attempt}): ${String(error)}`);
      }
    }
    throw new PairNotHealed(
      `${target.name} could not be rebuilt as the standby of ${from.name}: ${String(last)}; a synchronous primary commits nothing without one`,
      { cause: last },
    );
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
      const trouble = options.trouble ?? {};
      step(`failover from ${old.name} to ${standby.name}`);
      if (options.replicationStalledMs) {
        await stall();
        step(`replication stalled for ${options.replicationStalledMs} ms`);
        await sleep(options.replicationStalledMs);
      }
      const killedAt = Date.now();
      await loseMachine(old);
      step(`${old.name} lost`);
      // A stalled standby (stallReplication) is the one promoted: it is reachable first.
      await resume();
      if (trouble.standbyStopped && standby.process?.pid !== undefined) {
        await signalFamily(standby.process.pid, 'SIGSTOP');
      }
      await promoteOrRestart(standby, trouble);
      primary = nodes.indexOf(standby);
      const promotedAfterMs = Date.now() - killedAt;
      step(`${standby.name} promoted after ${promotedAfterMs} ms`);
      await rebuildStandby(old, standby);
      // Nothing commits on a synchronous primary until a standby streams: it does now.
      try {
        await until('the new primary commits', () => commits(standby));
      } catch (error) {
        throw new PairNotHealed(`${standby.name} does not commit: ${String(error)}`, {
          cause: error,
        });
      }
      const writableAfterMs = Date.now() - killedAt;
      step(`${standby.name} commits after ${writableAfterMs} ms`);
      return { promotedAfterMs, writableAfterMs };
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
  for (const target of [pid, ...(await childrenOf(pid))]) send(target, signal);
}

/**
 * SIGKILLs the postmaster and every child, and waits until all are gone. The postmaster
 * is stopped first: under a storm of connections it forks a backend every few
 * milliseconds, and a child forked between the look at /proc and the kill would outlive
 * it (reparented, holding the shared memory: the server then cannot start again).
 */
async function killFamily(pid: number): Promise<void> {
  send(pid, 'SIGSTOP');
  const family = [pid, ...(await childrenOf(pid))];
  for (const target of family) send(target, 'SIGKILL');
  const deadline = Date.now() + 10_000;
  const alive = async () => {
    const states = await Promise.all(
      family.map((p) => readFile(`/proc/${p}/stat`, 'utf8').catch(() => '')),
    );
    // A zombie (state Z) is dead already: only its parent's wait is missing.
    return states.some(
      (stat) =>
        stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z',
    );
  };
  while ((await alive()) && Date.now() < deadline) await sleep(20);
}

async function childrenOf(pid: number): Promise<number[]> {
  const entries = (await readdir('/proc').catch(() => [] as string[])).filter((e) =>
    /^\d+$/.test(e),
  );
  const stats = await Promise.all(
    entries.map((entry) => readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')),
  );
  // pid (comm) state ppid …: comm may hold spaces, so read after its closing paren.
  return entries
    .filter((_, i) => {
      const stat = stats[i]!;
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
    })
    .map(Number);
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // exited meanwhile
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

/**
 * Runs `use` on a connection of its own to `node`, for at most `ms`: a check that does
 * not answer by then is cancelled and its connection closed (it rejects), so no check can
 * hold a failover for longer than that.
 */
async function withClient<T>(
  node: PairNode,
  use: (sql: postgres.Sql, notices: postgres.Notice[]) => Promise<T>,
  ms = CHECK_MS,
): Promise<T> {
  const notices: postgres.Notice[] = [];
  const sql = postgres({
    host: node.address,
    port: node.port,
    user: 'postgres',
    database: 'postgres',
    max: 1,
    connect_timeout: 2,
    onnotice: (notice) => notices.push(notice),
  });
  const timer = setTimeout(() => void sql.end({ timeout: 0 }), ms);
  try {
    return await use(sql, notices);
  } finally {
    clearTimeout(timer);
    await sql.end({ timeout: 1 });
  }
}

/** `work`'s answer, or undefined when it took longer than `ms` (it goes on unheard). */
async function withinMs<T>(ms: number, work: () => Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work(), late]);
  } finally {
    clearTimeout(timer);
  }
}

const answers = (node: PairNode) =>
  withClient(node, (sql) => sql`select 1`).then(
    () => true,
    () => false,
  );

/**
 * Promotes the server unless it is a primary already, through its data directory rather
 * than a connection (as an operator's instance manager does): `pg_ctl promote` signals
 * the postmaster, and `pg_controldata` says when recovery has ended. Over a connection,
 * a promotion can wait for ever: every service pool retrying `target_session_attrs=primary`
 * against the standby keeps its postmaster forking, and on a busy machine no connection
 * of ours gets through in time (seen: CONNECT_TIMEOUT on every check for 20 s).
 * 'primary' once it is one, else why not yet.
 */
async function promoteByDirectory(node: PairNode, asOwner: object): Promise<string> {
  const control = async () => {
    const { stdout } = await run(join(await binDir(), 'pg_controldata'), ['-D', node.dir], {
      ...asOwner,
      timeout: 3_000,
    });
    return /Database cluster state:\s*(.+)/.exec(stdout)?.[1]?.trim() ?? 'unknown';
  };
  try {
    if ((await control()) === 'in production') return 'primary';
    await run(join(await binDir(), 'pg_ctl'), ['promote', '-D', node.dir, '-W'], {
      ...asOwner,
      timeout: 3_000,
    }).catch((error: unknown) => {
      // Asked already by an earlier check: it is under way.
      if (!/not in standby mode|already/i.test(String(error))) throw error;
    });
    for (let i = 0; i < 20; i++) {
      const state = await control();
      if (state === 'in production') return 'primary';
      await sleep(100);
    }
    return `still ${await control()} 2 s after pg_ctl promote`;
  } catch (error) {
    return String(error);
  }
}

/**
 * Whether a transaction that writes WAL commits: on a synchronous primary, only once a
 * standby has it (a transaction that only takes an xid, `txid_current()`, writes no WAL
 * and never waits: it said "commits" before any standby streamed). One that waits past a
 * check is cancelled (Postgres then warns that it committed locally only), so waiting
 * checks never pile up on the server.
 */
const commits = (node: PairNode) =>
  withClient(
    node,
    async (sql, notices) => {
      const query = sql`select pg_logical_emit_message(true, 'dzpay', 'failover-check')`;
      const timer = setTimeout(() => query.cancel(), CHECK_MS - 1_000);
      try {
        await query;
      } finally {
        clearTimeout(timer);
      }
      return !notices.some((notice) => /synchronous replication/i.test(notice.message ?? ''));
    },
    CHECK_MS + 1_000,
  ).catch(() => false);

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
