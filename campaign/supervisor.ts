import { createWriteStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnNode, waitUntilReady, type SpawnedProcess } from '@dzpay/testkit/processes';

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

export function supervise(spec: ServiceSpec, logFile: string): SupervisedService {
  const log = createWriteStream(logFile, { flags: 'a' });
  let child: SpawnedProcess | null = null;
  let phase: Phase = 'down';
  let starting: Promise<void> | null = null;
  let extraEnv: Record<string, string> = {};
  const unexpectedExits: SupervisedService['unexpectedExits'] = [];

  function launch(): SpawnedProcess {
    const launched = spawnNode({
      name: spec.name,
      entry: spec.entry,
      env: { ...spec.env, ...extraEnv },
      echo: log,
    });
    child = launched;
    void launched.exited().then(({ code, signal }) => {
      if (child === launched) child = null;
      if (phase === 'ready') {
        // Nobody asked it to go: a bug. Report it, and do what an orchestrator does.
        unexpectedExits.push({ at: Date.now(), code, signal });
        log.write(`\n--- campaign: ${spec.name} exited by itself (${signal ?? code}) ---\n`);
        void service.start().catch(() => undefined);
      }
    });
    return launched;
  }

  async function startUntilReady(): Promise<void> {
    phase = 'starting';
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (phase === 'starting') {
      // Started while it runs (a settle starting every service): it is only waited for.
      const current = child?.running ? child : launch();
      try {
        await waitUntilReady(current, {
          readyUrl: spec.readyUrl,
          readyTimeoutMs: Math.max(0, deadline - Date.now()),
          pollIntervalMs: 200,
        });
        phase = 'ready';
        return;
      } catch (error) {
        // A service that cannot start yet (NATS still down) exits: start it once more.
        if (Date.now() >= deadline) {
          throw new Error(`${spec.name} not ready after ${READY_TIMEOUT_MS} ms (log: ${logFile})`, {
            cause: error,
          });
        }
        await sleep(200);
      }
    }
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
      await child?.exited();
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
      await child?.stop(STOP_TIMEOUT_MS);
      phase = 'down';
      await new Promise<void>((resolve) => log.end(resolve));
    },
  };
  return service;
}
