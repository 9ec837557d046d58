import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type IsolatedInfra } from '@dzpay/testkit';

const START = fileURLToPath(new URL('../../scripts/start.ts', import.meta.url));

/** The ports `pnpm start` was given: each of its listeners on a free one. */
interface StartPorts {
  http: string;
  sandbox: string;
  nats: string;
  /** gateway, qr-config, payments, status, webhook-dispatcher, receipts, dashboard. */
  ops: string[];
}

/** `pnpm start` running as a user runs it, in its own process group, on free ports. */
export interface PnpmStart {
  ports: StartPorts;
  /** Its NATS folder (users, cli.env, secrets.key) and its demo file. */
  natsDir: string;
  demoFile: string;
  /** What it printed so far, stdout and stderr. */
  output(): string;
  exited: Promise<{ code: number | null; at: number }>;
  /** Waits for "Press Ctrl-C" (everything ready, the demo seeded). */
  ready(): Promise<void>;
  /** The demo merchant it seeded and its test key, as .dzpay-demo.json has them. */
  demo(): Promise<{ merchantId: string; key: string; qrToken: string }>;
  /** Ctrl-C as a terminal sends it: SIGINT to the whole group. */
  interrupt(): void;
  /** SIGKILL to the group if it still runs (a test's cleanup). */
  kill(): void;
}

/**
 * Runs scripts/start.ts on the test's own database and NATS prefix (infra), with every
 * port free and its files under `dir`, as the README's `pnpm start` runs it.
 */
export async function launchPnpmStart(
  infra: IsolatedInfra,
  dir: string,
  env: Record<string, string> = {},
): Promise<PnpmStart> {
  const ports = await Promise.all(Array.from({ length: 13 }, () => freePort()));
  const [http, gatewayHttp, dashboardHttp, sandbox, smtp, nats, ...ops] = ports.map(String) as [
    string,
    ...string[],
  ];
  const natsDir = join(dir, 'nats');
  const demoFile = join(dir, 'demo.json');
  const child = spawn(process.execPath, [START], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...infra.env,
      LOG_LEVEL: 'warn',
      HTTP_PORT: http,
      GATEWAY_HTTP_PORT: gatewayHttp,
      DASHBOARD_HTTP_PORT: dashboardHttp,
      SANDBOX_PORT: sandbox,
      SMTP_PORT: smtp,
      GATEWAY_OPS_PORT: ops[0],
      QR_CONFIG_OPS_PORT: ops[1],
      PAYMENTS_OPS_PORT: ops[2],
      STATUS_OPS_PORT: ops[3],
      WEBHOOK_DISPATCHER_OPS_PORT: ops[4],
      RECEIPTS_OPS_PORT: ops[5],
      DASHBOARD_OPS_PORT: ops[6],
      DEMO_FILE: demoFile,
      NATS_PORT: nats,
      NATS_DIR: natsDir,
      ...env,
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    ports: { http, sandbox: sandbox!, nats: nats!, ops: ops },
    natsDir,
    demoFile,
    output: () => output,
    exited,
    async ready() {
      const deadline = Date.now() + 60_000;
      while (!output.includes('Press Ctrl-C')) {
        if (!running()) throw new Error(`pnpm start exited:\n${output}`);
        if (Date.now() > deadline) throw new Error(`pnpm start not ready in 60 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    demo: async () =>
      JSON.parse(await readFile(demoFile, 'utf8')) as Awaited<ReturnType<PnpmStart['demo']>>,
    interrupt: () => process.kill(-child.pid!, 'SIGINT'),
    kill() {
      if (running()) process.kill(-child.pid!, 'SIGKILL');
    },
  };
}
