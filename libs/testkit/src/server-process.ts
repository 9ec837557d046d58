import { constants, rmSync } from 'node:fs';
import { access, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { pollUntilReady, spawnProcess, type SpawnedProcess } from './child-process.ts';

/** A server process of our own on a loopback port, which a fault campaign may kill and restart. */
export interface LocalServer {
  url: string;
  port: number;
  /** The running process's id; undefined while it is down. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Sends the signal (SIGKILL unless told) and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and with the same files; terminates it first if it runs. */
  restart(): Promise<void>;
  /** SIGTERM, SIGKILL after 5 s, then removes the temporary directories it made. */
  stop(): Promise<void>;
  /** The last ~200 KB the process (and its predecessors) wrote, for failure messages. */
  output(): string;
}

export interface ServerLaunch {
  /** Program name, looked up on PATH. */
  binary: string;
  url: string;
  port: number;
  args: readonly string[];
  /** Temporary directories made for this server, removed by stop(). */
  ownedDirs: readonly string[];
  /**
   * Whether the process with this pid serves on the port. It must check the identity,
   * not just that something answers: a failed bind would otherwise pass for ready when
   * another server (the machine's shared one) holds the port.
   */
  answers: (pid: number) => Promise<boolean>;
  readyTimeoutMs?: number;
  /**
   * Runs it in a process group of its own, so a terminal's Ctrl-C does not reach it:
   * `pnpm start` stops its NATS only after the services have drained through it. It is
   * still killed when this process exits.
   */
  ownProcessGroup?: boolean;
  /**
   * A network namespace to run it in (`ip netns exec`): its port is then on an address of
   * that namespace, not ours, and is not checked here.
   */
  netns?: string;
}

/** The output of every run of the server, restarts included. */
const OUTPUT_LIMIT = 200_000;
const TERM_GRACE_MS = 5_000;

// A crashed campaign must leave no files of its servers behind (the processes themselves
// are killed by child-process.ts's own exit hook).
const liveDirs = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const dir of liveDirs) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      } catch {
        // a killed server may still be closing its files; /tmp is cleaned eventually
      }
    }
  });
}

/** The executable's path, searched like `command -v` with /usr/sbin and /usr/bin as fallback. */
export async function findBinary(name: string): Promise<string> {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin'];
  for (const dir of dirs.filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  throw new Error(
    `${name} not found on PATH nor in /usr/sbin, /usr/bin (on Debian: apt-get install ${name})`,
  );
}

/** Spawns the server in the foreground and resolves once it answers. */
export async function launchServer(launch: ServerLaunch): Promise<LocalServer> {
  const timeoutMs = launch.readyTimeoutMs ?? 15_000;
  installExitHook();
  for (const dir of launch.ownedDirs) liveDirs.add(dir);
  let path: string;
  try {
    path = await findBinary(launch.binary);
    if (!launch.netns) await refuseBusyPort(launch.binary, launch.port);
  } catch (error) {
    await removeDirs(launch.ownedDirs);
    throw error;
  }
  let output = '';
  let current: SpawnedProcess | undefined;
  let stopped = false;

  const note = (text: string): void => {
    output = (output + text).slice(-OUTPUT_LIMIT);
  };

  const spawnRun = (): SpawnedProcess =>
    spawnProcess({
      name: launch.binary,
      ...(launch.netns
        ? { command: 'ip', args: ['netns', 'exec', launch.netns, path, ...launch.args] }
        : { command: path, args: launch.args }),
      detached: launch.ownProcessGroup ?? false,
      onOutput: note,
    });

  const isRunning = (): boolean => current?.running ?? false;

  const signalAndWait = async (signal: NodeJS.Signals): Promise<void> => {
    if (!current?.running) return;
    current.kill(signal);
    await current.exited();
  };

  const terminate = async (): Promise<void> => {
    await current?.stop(TERM_GRACE_MS);
  };

  const start = async (): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    let busyAttempts = 0;
    for (;;) {
      const run = (current = spawnRun());
      const outcome = await pollUntilReady(
        run,
        async () => run.pid !== undefined && (await launch.answers(run.pid)),
        deadline,
      );
      if (outcome === 'ready') return;
      // Right after a kill the old process's socket may not be released yet.
      const portBusy = outcome === 'exited' && /address already in use/i.test(run.output());
      if (portBusy) busyAttempts++;
      if (portBusy && Date.now() < deadline) {
        await sleep(200);
        continue;
      }
      await signalAndWait('SIGKILL');
      const why =
        busyAttempts > 0
          ? `found its port in use ${busyAttempts} times in ${timeoutMs} ms (another server holds it?)`
          : outcome === 'exited'
            ? 'exited before it was ready'
            : `not ready after ${timeoutMs} ms`;
      // Only this last attempt's log: a long retry loop would repeat the same banner.
      throw new Error(`${launch.binary} at ${launch.url} ${why}:\n${run.output()}`);
    }
  };

  const server: LocalServer = {
    url: launch.url,
    port: launch.port,
    get pid() {
      return isRunning() ? current?.pid : undefined;
    },
    get running() {
      return isRunning();
    },
    kill: (signal = 'SIGKILL') => signalAndWait(signal),
    async restart() {
      if (stopped) throw new Error(`${launch.binary} on port ${launch.port} was stopped`);
      await terminate();
      note(`\n[restarting ${launch.binary}]\n`);
      await start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await terminate();
      await removeDirs(launch.ownedDirs);
    },
    output: () => output,
  };

  try {
    await start();
  } catch (error) {
    await removeDirs(launch.ownedDirs);
    throw error;
  }
  return server;
}

async function removeDirs(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    liveDirs.delete(dir);
  }
}

/**
 * A port somebody already listens on is most likely one of the machine's shared servers
 * (NATS 4222, Redis 6379): say so now rather than probe that server for 15 s.
 */
async function refuseBusyPort(binary: string, port: number): Promise<void> {
  const probe = createServer();
  const free = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!free)
    throw new Error(`port ${port} on 127.0.0.1 is in use: refusing to start ${binary} there`);
  await new Promise((resolve) => probe.close(resolve));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
