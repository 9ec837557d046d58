import { spawn } from 'node:child_process';

// @dzpay/testkit's index imports vitest, which has no business in a plain `node` run:
// take only its process helpers.
export { freePort } from '@dzpay/testkit/processes';

export interface NodeProcess {
  readonly name: string;
  /** The process id, for reading its CPU time from /proc. */
  readonly pid: number;
  /** Why the process ended on its own after it was ready, if it did. */
  failure(): string | undefined;
  /** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `node <entry>` and waits until `readyUrl` answers 2xx. A process that exits or
 * is not ready in time is killed; its output is on stderr already.
 */
export async function startNode(
  name: string,
  entry: string,
  env: Record<string, string>,
  readyUrl: string,
  timeoutMs = 30_000,
): Promise<NodeProcess> {
  // BENCH_CPU_PROF=<dir>: each child writes a V8 CPU profile there when it exits
  // (bench/profile-summary.ts sums one up by function and by package).
  const profile = process.env.BENCH_CPU_PROF;
  const flags = profile
    ? [
        '--cpu-prof',
        '--cpu-prof-dir',
        profile,
        '--cpu-prof-name',
        `${name}.${Date.now()}.cpuprofile`,
      ]
    : [];
  const child = spawn(process.execPath, [...flags, entry], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // LOG_LEVEL=warn: whatever a service logs during the run matters, so pass it on.
  const echo = (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk.toString()}`);
  child.stdout.on('data', echo);
  child.stderr.on('data', echo);
  let stopping = false;
  let failure: string | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      // A service dying mid-run turns the rest of the run into connection errors.
      if (!stopping) failure = `${name} exited during the run (code ${code}, signal ${signal})`;
      resolve();
    }),
  );

  const stop = async (graceMs = 10_000) => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited before it was ready`);
    try {
      if ((await fetch(readyUrl)).ok)
        return { name, pid: child.pid!, stop, failure: () => failure };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop(1_000);
  throw new Error(`${name} not ready after ${timeoutMs} ms`);
}
