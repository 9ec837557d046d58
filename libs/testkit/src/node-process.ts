import {
  answersOk,
  pollUntilReady,
  spawnProcess,
  type SpawnedProcess,
  type SpawnOptions,
} from './child-process.ts';

// The one way this repository starts a node process and waits until it is ready: the
// service tests, the process stacks, `pnpm start`, `pnpm bench` and the fault campaign.

export interface NodeLaunch extends Pick<SpawnOptions, 'name' | 'env' | 'echo'> {
  /** The script `node` runs (a service's main.ts, say). */
  entry: string;
  /** Node's own flags, before the entry (a CPU profile, say). */
  nodeArgs?: readonly string[];
}

/** Starts `node <entry>` now, without waiting for anything. */
export function spawnNode(launch: NodeLaunch): SpawnedProcess {
  return spawnProcess({
    name: launch.name,
    command: process.execPath,
    args: [...(launch.nodeArgs ?? []), launch.entry],
    ...(launch.env ? { env: launch.env } : {}),
    ...(launch.echo ? { echo: launch.echo } : {}),
  });
}

export interface Readiness {
  /** A URL that answers 2xx once the process is ready (a service's /readyz, say). */
  readyUrl: string;
  readyTimeoutMs?: number;
  /**
   * Ready only when the answer names this process (a dzpay service's ops server does):
   * another process that took the port first never passes for it.
   */
  sameProcess?: boolean;
  /** Between two asks. */
  pollIntervalMs?: number;
}

/**
 * Resolves once `readyUrl` answers 2xx. A process that exits first, or is not ready in
 * time, is killed (SIGKILL) and the error carries what it wrote, unless that went to a
 * terminal or our stderr already.
 */
export async function waitUntilReady(spawned: SpawnedProcess, readiness: Readiness): Promise<void> {
  const timeoutMs = readiness.readyTimeoutMs ?? 20_000;
  const outcome = await pollUntilReady(
    spawned,
    () => answersOk(readiness.readyUrl, readiness.sameProcess ? spawned.pid : undefined),
    Date.now() + timeoutMs,
    readiness.pollIntervalMs,
  );
  if (outcome === 'ready') return;
  spawned.kill('SIGKILL');
  const exit = await spawned.exited();
  const why =
    outcome === 'exited'
      ? `exited before it was ready (${exit.signal ?? `code ${exit.code}`})`
      : `not ready at ${readiness.readyUrl} after ${timeoutMs} ms`;
  const output = spawned.output();
  throw new Error(`${spawned.name} ${why}${output ? `:\n${output}` : ''}`);
}

/** Starts `node <entry>` and resolves once it is ready (see waitUntilReady). */
export async function startNode(launch: NodeLaunch & Readiness): Promise<SpawnedProcess> {
  const spawned = spawnNode(launch);
  await waitUntilReady(spawned, launch);
  return spawned;
}
