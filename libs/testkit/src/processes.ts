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

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
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
