import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { SpawnedProcess } from './child-process.ts';
import { startNode } from './node-process.ts';

// What `@dzpay/testkit/processes` gives the harnesses: free ports, node processes started
// and awaited, the admin CLI. Deliberately free of vitest: `pnpm start`, `pnpm bench` and
// the fault campaign are plain `node` CLIs.
export type { ProcessExit, SpawnedProcess } from './child-process.ts';
export {
  spawnNode,
  startNode,
  waitUntilReady,
  type NodeLaunch,
  type Readiness,
} from './node-process.ts';
export { ADMIN_CLI_ENTRY, runAdminCli } from './admin-cli.ts';

/**
 * A port nobody listens on right now, from below the kernel's ephemeral range. A port the
 * kernel hands out (listen(0), or the local end of any outgoing connection: every test's
 * Postgres, NATS and Redis clients) is never one of these, so the only race left between
 * this answer and the caller's listen is another harness's pick: random over ~17 000
 * ports, and never the same port twice in one process.
 */
export async function freePort(): Promise<number> {
  const [low, high] = pickableRange();
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = low + randomInt(high - low + 1);
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${low} and ${high}`);
}

const handedOut = new Set<number>();

/** From 15000 up to the ephemeral range's start (Linux's ip_local_port_range). */
function pickableRange(): [number, number] {
  const ephemeralStart = ephemeralRangeStart();
  return [PICKABLE_LOW, Math.max(PICKABLE_LOW + 1000, ephemeralStart - 1)];
}

/** Above Postgres, Redis, NATS and the usual development ports. */
const PICKABLE_LOW = 15_000;

function ephemeralRangeStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    return start && start > PICKABLE_LOW + 1000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A service's own process, with the ops port its /readyz answers on. */
export interface ServiceProcess extends SpawnedProcess {
  readonly opsPort: number;
}

/**
 * Starts a service's main.ts as its own process (real signals, real crashes) on a free
 * ops port and waits until its /readyz answers 200.
 */
export async function spawnService(
  entry: string,
  env: Record<string, string>,
  readyTimeoutMs = 20_000,
): Promise<ServiceProcess> {
  // A free port is free when asked, not when the service listens: another process (a
  // parallel test's) may take it in between. The service then exits; it is started
  // again on another port, and readiness is only ever its own answer.
  for (let attempt = 1; ; attempt += 1) {
    const opsPort = await freePort();
    try {
      const service = await startNode({
        name: serviceNameOf(entry),
        entry,
        env: { ...env, OPS_PORT: String(opsPort), OPS_HOST: '127.0.0.1' },
        readyUrl: `http://127.0.0.1:${opsPort}/readyz`,
        readyTimeoutMs,
        sameProcess: true,
      });
      return Object.assign(service, { opsPort });
    } catch (error) {
      const portTaken = error instanceof Error && error.message.includes(`EADDRINUSE`);
      if (!portTaken || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

/** How many ports a service is tried on before its start is said to fail. */
const PORT_ATTEMPTS = 3;

/** `payments` for services/payments/src/main.ts; the file name for anything else. */
function serviceNameOf(entry: string): string {
  return /([^/\\]+)[/\\]src[/\\]main\.ts$/.exec(entry)?.[1] ?? entry.split(/[/\\]/).at(-1)!;
}
