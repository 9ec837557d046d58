import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly opsPort: number;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  /** Resolves with how the process ended. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

/**
 * Starts a service's main.ts as its own process (real signals, real crashes) and waits
 * until its /readyz answers 200.
 */
export async function spawnService(
  entry: string,
  env: Record<string, string>,
  readyTimeoutMs = 20_000,
): Promise<ServiceProcess> {
  const opsPort = await freePort();
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, ...env, OPS_PORT: String(opsPort), OPS_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const service: ServiceProcess = {
    child,
    opsPort,
    output: () => output,
    exited: () => exit,
    kill: (signal) => child.kill(signal),
  };
  await waitUntilReady(service, readyTimeoutMs);
  return service;
}

async function waitUntilReady(service: ServiceProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) {
      throw new Error(`service exited before it was ready:\n${service.output()}`);
    }
    try {
      const response = await fetch(`http://127.0.0.1:${service.opsPort}/readyz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  service.kill('SIGKILL');
  throw new Error(`service not ready after ${timeoutMs} ms:\n${service.output()}`);
}
