import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startCpuProbe, type CpuPerRequest, type ProcessRef } from './cpu.ts';
import { freePort } from './processes.ts';
import type { RequestOptions } from './requests.ts';
import { settings } from './settings.ts';
import type { BenchStack, RunningStack } from './stack.ts';

/** One measured run: autocannon's result and the CPU each process spent per request. */
export type Measured = autocannon.Result & { cpuUsPerRequest: CpuPerRequest };

/**
 * Warmup, then the measured run; `cpuOf` names processes whose CPU time is read from
 * /proc around the measured run (µs per request).
 */
export type Measure = (
  title: string,
  options: RequestOptions,
  cpuOf?: Record<string, ProcessRef>,
) => Promise<Measured>;

/** Measures with the bench's settings; a run during which a process died is void. */
export function measurer(failures: () => string[]): Measure {
  const { seconds, warmupSeconds, connections } = settings;
  return async (title, options, cpuOf = {}) => {
    console.log(`${title}: ${warmupSeconds} s warmup, then ${seconds} s with ${connections} conns`);
    await autocannon({ ...options, connections, duration: warmupSeconds });
    const probe = startCpuProbe(cpuOf);
    const result = await autocannon({ ...options, connections, duration: seconds });
    const cpuUsPerRequest = probe(result.requests.total);
    const failed = failures();
    if (failed.length > 0) throw new Error(`${title} run is void: ${failed.join('; ')}`);
    return Object.assign(result, { cpuUsPerRequest });
  };
}

/**
 * A reference server (bench/hello-world.ts, bench/nats-hop.ts): started, measured, and
 * stopped before the next measurement.
 */
export async function measureServer(
  deps: { stack: BenchStack; running: RunningStack; measure: Measure },
  title: string,
  entry: string,
  extraEnv: Record<string, string>,
  request: Pick<autocannon.Options, 'method' | 'headers' | 'body'>,
): Promise<Measured> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const server = await deps.stack.startProcess(
    title,
    fileURLToPath(new URL(entry, import.meta.url)),
    { HTTP_PORT: String(port), ...extraEnv },
    url,
  );
  const result = await deps.measure(
    title,
    { url, ...request },
    { [title]: server.pid, nats: deps.running.cpu.nats!, bench: process.pid },
  );
  // Idle or not, a reference server gets out of the way before the next run.
  await server.stop();
  return result;
}
