// @dzpay/testkit's index imports vitest, which has no business in a plain `node` run:
// take only its process helpers.
import { freePort, startNode } from '@dzpay/testkit/processes';

export { freePort };

/** A process of the bench: a service of the stack or a reference server. */
export interface BenchProcess {
  readonly name: string;
  /** The process id, for reading its CPU time from /proc. */
  readonly pid: number;
  /** Why the process ended on its own after it was ready, if it did. */
  failure(): string | undefined;
  /** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `node <entry>` and waits until `readyUrl` answers 2xx. Its output goes to
 * stderr, each chunk after its name: at LOG_LEVEL=warn whatever a service logs during
 * the run matters.
 */
export async function startBenchProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
  readyUrl: string,
): Promise<BenchProcess> {
  const started = await startNode({
    name,
    entry,
    env,
    nodeArgs: profileFlags(name),
    echo: 'prefixed',
    readyUrl,
    readyTimeoutMs: 30_000,
  });
  let stopping = false;
  let failure: string | undefined;
  void started.exited().then(({ code, signal }) => {
    // A service dying mid-run turns the rest of the run into connection errors.
    if (!stopping) failure = `${name} exited during the run (code ${code}, signal ${signal})`;
  });
  return {
    name,
    pid: started.pid!,
    failure: () => failure,
    async stop(graceMs = 10_000) {
      stopping = true;
      await started.stop(graceMs);
    },
  };
}

/**
 * BENCH_CPU_PROF=<dir>: each child writes a V8 CPU profile there when it exits
 * (bench/profile-summary.ts sums one up by function and by package).
 */
function profileFlags(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return [];
  return [
    '--cpu-prof',
    '--cpu-prof-dir',
    dir,
    '--cpu-prof-name',
    `${name}.${Date.now()}.cpuprofile`,
  ];
}
