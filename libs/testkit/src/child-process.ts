import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

// Deliberately free of vitest: `pnpm start`, `pnpm bench` and the fault campaign spawn
// their processes with this from a plain `node` CLI.

/** How a child process ended ({ null, null } when it could not be spawned at all). */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process, its output and its end, as every harness of this repository needs them. */
export interface SpawnedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number | undefined;
  /** Until it has exited (or failed to spawn). */
  readonly running: boolean;
  /** How it ended; undefined while it runs. */
  readonly exit: ProcessExit | undefined;
  /**
   * The last ~200 KB it wrote and how it ended, for failure messages; nothing when its
   * output went to our stderr or terminal (it was shown already).
   */
  output(): string;
  /** Resolves with how the process ended. */
  exited(): Promise<ProcessExit>;
  /** Sends the signal (SIGKILL unless told) while it runs. */
  kill(signal?: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves once it has. */
  stop(graceMs?: number): Promise<ProcessExit>;
}

export interface SpawnOptions {
  /** What messages and prefixes call it. */
  name: string;
  command: string;
  args: readonly string[];
  /** Variables on top of this process's environment. */
  env?: Record<string, string>;
  /**
   * Where its output goes: kept in memory only (unset); also piped into a stream of ours
   * (a log file), left open when the child ends; instead to this process's stderr with
   * `[name] ` before each chunk (`prefixed`), or to our own stdout and stderr untouched
   * (`inherit`).
   */
  echo?: 'prefixed' | 'inherit' | NodeJS.WritableStream;
  /** Each piece of what the tail keeps, as it is kept (output and the end notes). */
  onOutput?: (text: string) => void;
  /** A process group of its own (see ServerLaunch.ownProcessGroup); killed as a group on exit. */
  detached?: boolean;
  /** Runs as this user and group (a server that refuses root, such as Postgres). */
  uid?: number;
  gid?: number;
}

const OUTPUT_LIMIT = 200_000;
const STOP_GRACE_MS = 10_000;

// A crashed or interrupted harness must leave no process behind. Children share our
// process group on purpose, so a terminal's Ctrl+C reaches them too. A signal that kills
// only us (SIGTERM from a supervisor) skips 'exit' handlers: a CLI that may get one should
// turn it into process.exit().
const liveChildren = new Map<ChildProcess, { group: boolean }>();
let exitHookInstalled = false;

function killChildrenOnExit(child: ChildProcess, group: boolean): void {
  liveChildren.set(child, { group });
  child.once('exit', () => liveChildren.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [live, how] of liveChildren) {
      try {
        if (how.group && live.pid !== undefined) process.kill(-live.pid, 'SIGKILL');
        else live.kill('SIGKILL');
      } catch {
        // gone already
      }
    }
  });
}

/** Spawns the process now; waiting until it is ready is the caller's (see pollUntilReady). */
export function spawnProcess(options: SpawnOptions): SpawnedProcess {
  const { name, echo } = options;
  const child = spawn(options.command, options.args, {
    env: { ...process.env, ...options.env },
    stdio: [
      'ignore',
      echo === 'inherit' ? 'inherit' : 'pipe',
      echo === 'inherit' ? 'inherit' : 'pipe',
    ],
    detached: options.detached ?? false,
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {}),
  });
  killChildrenOnExit(child, options.detached ?? false);
  let output = '';
  // What went to our stderr or terminal was shown already: nothing of it is kept.
  const shown = echo === 'prefixed' || echo === 'inherit';
  const keep = (text: string): void => {
    if (shown) return;
    output = (output + text).slice(-OUTPUT_LIMIT);
    options.onOutput?.(text);
  };
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    if (echo === 'prefixed') {
      stream.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk.toString()}`));
    } else {
      stream.on('data', (chunk: Buffer) => keep(chunk.toString()));
      if (echo && echo !== 'inherit') stream.pipe(echo, { end: false });
    }
  }

  let exit: ProcessExit | undefined;
  let markExited: (how: ProcessExit) => void = () => {};
  const exited = new Promise<ProcessExit>((resolve) => (markExited = resolve));
  const finish = (how: ProcessExit): void => {
    exit = how;
    liveChildren.delete(child);
    markExited(how);
  };
  child.once('exit', (code, signal) => {
    keep(`\n[${name} exited: ${signal ?? `code ${code}`}]\n`);
    finish({ code, signal });
  });
  child.on('error', (error) => {
    keep(`\n[${name}: ${error.message}]\n`);
    // Only a failed spawn ends here without an exit event.
    if (child.pid === undefined) finish({ code: null, signal: null });
  });

  return {
    name,
    child,
    get pid() {
      return child.pid;
    },
    get running() {
      return exit === undefined;
    },
    get exit() {
      return exit;
    },
    output: () => output,
    exited: () => exited,
    kill: (signal = 'SIGKILL') => {
      if (exit === undefined) child.kill(signal);
    },
    async stop(graceMs = STOP_GRACE_MS) {
      if (exit !== undefined) return exit;
      // A paused (SIGSTOP) process would never hear SIGTERM.
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const how = await exited;
      clearTimeout(timer);
      return how;
    },
  };
}

/** How long one readiness probe may take: one that accepts but never replies must not stall the wait. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Asks `probe` every `intervalMs` until it says yes, the process ends, or the deadline
 * passes. A probe that throws or hangs counts as a no.
 */
export async function pollUntilReady(
  spawned: SpawnedProcess,
  probe: () => Promise<boolean>,
  deadline: number,
  intervalMs = 100,
): Promise<'ready' | 'exited' | 'timeout'> {
  while (Date.now() < deadline) {
    if (!spawned.running) return 'exited';
    const answer = Promise.resolve()
      .then(probe)
      .catch(() => false);
    // Unref'd: the timer left pending once the probe answers must not keep a CLI alive.
    const hung = sleep(PROBE_TIMEOUT_MS, false, { ref: false });
    if (await Promise.race([answer, hung])) return 'ready';
    await sleep(intervalMs);
  }
  return spawned.running ? 'timeout' : 'exited';
}

/** Whether `url` answers 2xx within the probe's time. */
export async function answersOk(url: string, pid?: number): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }).catch(
    () => null,
  );
  if (!response?.ok) return false;
  // Asked to: the answer must come from that process (its ops server names its pid).
  return pid === undefined || response.headers.get('x-process-id') === String(pid);
}
