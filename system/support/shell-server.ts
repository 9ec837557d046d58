import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';

/** A server a README's shell line started (php -S, python3 …), in its own process group. */
export interface ShellServer {
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `command` with bash, as a reader pastes it into a terminal, and resolves once
 * something accepts TCP connections on `port` of 127.0.0.1; rejects with what it printed
 * if it exits first or is not up within 10 s.
 */
export async function startShellServer(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; port: number },
): Promise<ShellServer> {
  const child = spawn('bash', ['-c', command], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const server = { output: () => output, stop: () => stopGroup(child) };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(options.port))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      await server.stop();
      throw new Error(`${command} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return server;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
}
