// `pnpm start`: dzpay on this machine. Creates the database, applies migrations,
// starts qr-config and the gateway, seeds a demo merchant into an empty database, and
// prints where everything is. Ctrl-C stops the services gracefully.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { BaseEnv, connectPostgres, loadConfig, migrate } from '@dzpay/platform';
import { ensureDatabase } from './database.ts';
import { SERVICE_MIGRATIONS } from './service-migrations.ts';

const root = new URL('../', import.meta.url);
const path = (relative: string) => fileURLToPath(new URL(relative, root));
const DEMO_FILE = path('.dzpay-demo.json');
const HTTP_PORT = process.env.HTTP_PORT ?? '8080';
const SERVICES = [
  { name: 'qr-config', opsPort: process.env.QR_CONFIG_OPS_PORT ?? '9102' },
  { name: 'gateway', opsPort: process.env.GATEWAY_OPS_PORT ?? '9101' },
];

interface Demo {
  merchantId: string;
  key: string;
  qrToken: string;
}

const { DATABASE_URL } = loadConfig(BaseEnv.pick({ DATABASE_URL: true }));
await ensureDatabase(DATABASE_URL);
for (const { schema, folder } of SERVICE_MIGRATIONS) {
  const sql = connectPostgres(DATABASE_URL, schema, 1);
  await migrate(sql, schema, folder);
  await sql.end();
}

const children: ChildProcess[] = [];
for (const service of SERVICES) {
  children.push(start(service.name, service.opsPort));
  await waitReady(service.name, service.opsPort);
}
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

const demo = await seedDemo().catch((error: unknown) => {
  console.error(`seeding the demo merchant failed: ${String(error)}`);
  stop();
  return null;
});
const base = `http://localhost:${HTTP_PORT}`;
console.log(`
dzpay is running
  gateway (public API)  ${base}
  ops ports             gateway http://localhost:${SERVICES[1]!.opsPort}/readyz, qr-config http://localhost:${SERVICES[0]!.opsPort}/readyz
${
  demo
    ? `  demo merchant         ${demo.merchantId}
  demo test key         ${demo.key}
  demo QR token         ${demo.qrToken}

  curl -s -X POST ${base}/set-qr-config -H 'x-api-key: ${demo.key}' \\
    -H 'content-type: application/json' -d '{"token":"${demo.qrToken}","amounts":[1500,2500],"singleUse":false}'`
    : '  (the database already had merchants; no demo was seeded)'
}

Press Ctrl-C to stop.`);

/** Stops the gateway first: its in-flight requests still need qr-config to answer them. */
function stop(): void {
  const [qrConfig, gateway] = children;
  if (!gateway || gateway.exitCode !== null || gateway.signalCode !== null) {
    qrConfig?.kill('SIGTERM');
    return;
  }
  gateway.once('exit', () => qrConfig?.kill('SIGTERM'));
  gateway.kill('SIGTERM');
}

function start(name: string, opsPort: string): ChildProcess {
  const child = spawn(process.execPath, [path(`services/${name}/src/main.ts`)], {
    env: { ...process.env, DATABASE_URL, OPS_PORT: opsPort, HTTP_PORT },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.once('exit', (code, signal) => {
    console.log(`${name} exited (${signal ?? code})`);
    stop();
    process.exitCode = code ?? 0;
  });
  return child;
}

async function waitReady(name: string, opsPort: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const ready = await fetch(`http://127.0.0.1:${opsPort}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  stop();
  throw new Error(`${name} did not become ready on ops port ${opsPort}`);
}

/** Seeds a demo merchant, key and QR code into an empty database, through the admin CLI. */
async function seedDemo(): Promise<Demo | null> {
  const sql = connectPostgres(DATABASE_URL, 'accounts', 1);
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from merchants`;
  await sql.end();
  if (row!.n > 0) {
    // The key is stored hashed: only the file written at seeding can show it again.
    return existsSync(DEMO_FILE) ? (JSON.parse(await readFile(DEMO_FILE, 'utf8')) as Demo) : null;
  }
  const merchant = await cli<{ id: string }>('merchant', 'create', 'Demo merchant');
  const key = await cli<{ key: string }>('key', 'issue', merchant.id, '--mode', 'test');
  const qr = await cli<{ token: string }>('qr', 'create', merchant.id, '--mode', 'test');
  const demo = { merchantId: merchant.id, key: key.key, qrToken: qr.token };
  await writeFile(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}

async function cli<T>(...args: string[]): Promise<T> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path('services/gateway/src/cli/main.ts'), '--json', ...args],
    { env: { ...process.env, DATABASE_URL } },
  );
  return JSON.parse(stdout) as T;
}
