import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** How to run one service: its entry point, its environment and where it says it is ready. */
export interface ServiceSpec {
  name: string;
  entry: string;
  env: Record<string, string>;
  readyUrl: string;
}

/**
 * One service under the campaign's care, as an orchestrator would keep it: started,
 * killed when a fault says so, started again (retrying while what it needs is down),
 * and watched for dying on its own, which no ready service may do (it is restarted, and
 * the exit is reported).
 */
export interface SupervisedService {
  readonly name: string;
  readonly ready: boolean;
  /** SIGKILL; resolves once the process is gone. It stays down until start(). */
  kill(): Promise<void>;
  /** Starts it (again) and waits until it is ready. */
  start(): Promise<void>;
  /** SIGTERM, then SIGKILL after a while; it stays down. */
  stop(): Promise<void>;
  /**
   * SIGSTOP: the process stays, frozen (no timer, no socket read), as a VM paused or a
   * process stopped by a debugger or a long collection; `resume` sends SIGCONT.
   */
  pause(): void;
  resume(): void;
  /** Environment added to the next starts (until changed again): a skewed clock, say. */
  setExtraEnv(env: Record<string, string>): void;
  /** Exits of a ready service the campaign did not cause. */
  readonly unexpectedExits: { at: number; code: number | null; signal: string | null }[];
}

const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;

type Phase = 'down' | 'starting' | 'ready' | 'stopping';

// Services never outlive the campaign, even one that crashes or is interrupted.
const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

export function supervise(spec: ServiceSpec, logFile: string): SupervisedService {
  const log = createWriteStream(logFile, { flags: 'a' });
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let phase: Phase = 'down';
  let starting: Promise<void> | null = null;
  let extraEnv: Record<string, string> = {};
  const unexpectedExits: SupervisedService['unexpectedExits'] = [];

  function launch(): void {
    const launched = spawn(process.execPath, [spec.entry], {
      env: { ...process.env, ...spec.env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launched.stdout.pipe(log, { end: false });
    launched.stderr.pipe(log, { end: false });
    child = launched;
    alive.add(launched);
    exited = new Promise((resolve) => {
      launched.once('exit', (code, signal) => {
        alive.delete(launched);
        if (child === launched) child = null;
        if (phase === 'ready') {
          // Nobody asked it to go: a bug. Report it, and do what an orchestrator does.
          unexpectedExits.push({ at: Date.now(), code, signal });
          log.write(`\n--- campaign: ${spec.name} exited by itself (${signal ?? code}) ---\n`);
          void service.start().catch(() => undefined);
        }
        resolve();
      });
    });
  }

  async function answersReady(): Promise<boolean> {
    const response = await fetch(spec.readyUrl, { signal: AbortSignal.timeout(2_000) }).catch(
      () => null,
    );
    return response?.ok ?? false;
  }

  async function startUntilReady(): Promise<void> {
    phase = 'starting';
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (phase !== 'starting') return;
      // A service that cannot start yet (NATS still down) exits: start it once more.
      if (!child) launch();
      if (await answersReady()) {
        phase = 'ready';
        return;
      }
      await sleep(200);
    }
    throw new Error(`${spec.name} not ready after ${READY_TIMEOUT_MS} ms (log: ${logFile})`);
  }

  const service: SupervisedService = {
    name: spec.name,
    get ready() {
      return phase === 'ready';
    },
    unexpectedExits,
    async kill() {
      phase = 'down';
      child?.kill('SIGKILL');
      await exited;
    },
    start() {
      starting ??= startUntilReady().finally(() => {
        starting = null;
      });
      return starting;
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    setExtraEnv(env) {
      extraEnv = env;
    },
    async stop() {
      phase = 'stopping';
      // A paused process would never hear SIGTERM.
      child?.kill('SIGCONT');
      const current = child;
      if (current) {
        current.kill('SIGTERM');
        const stopped = await Promise.race([
          exited.then(() => true),
          sleep(STOP_TIMEOUT_MS, false),
        ]);
        if (!stopped) current.kill('SIGKILL');
        await exited;
      }
      phase = 'down';
      await new Promise<void>((resolve) => log.end(resolve));
    },
  };
  return service;
}
