// `pnpm start`: dzpay on this machine. Creates the database, applies migrations, starts
// the card network sandbox, qr-config, payments, status, the webhook dispatcher, receipts
// the gateway and the dashboard behind one front door (as the Ingress in a cluster:
// /dashboard to the dashboard, the rest to the gateway), seeds a demo merchant into an
// empty database, and prints where everything is. Receipt emails go to SMTP_HOST when it is set, else to a mail catcher on
// port 1025 (one already listening there, such as compose's mailpit, or a built-in one
// that saves each email's HTML under .dzpay-mail/). NATS is a server of its own on
// NATS_PORT (4223), secured as production's is: each service logs in as its own user,
// limited to its role's subjects (docs/nats-security.md); its store and users are kept
// under .dzpay-nats/, with the SECRETS_KEY that a run given none makes once and keeps.
// Ctrl-C stops the services gracefully, the gateway first, then NATS.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { BaseEnv, connectPostgres, httpLimitOptions, loadConfig } from '@dzpay/platform';
import { startMailCatcher } from '@dzpay/testkit';
import { startFrontDoor, type FrontDoor } from '@dzpay/testkit/front-door';
import {
  runAdminCli,
  spawnNode,
  waitUntilReady,
  type SpawnedProcess,
} from '@dzpay/testkit/processes';
import { startSecuredNatsServer, type LocalNatsServer } from '@dzpay/testkit/servers';
import { localNatsUsers, type LocalNatsUsers } from '@dzpay/stack/nats-users';
import type { NatsUser } from '@dzpay/stack/nats-permissions';
import { ensureDatabase } from './database.ts';
import {
  DEFAULT_OPS_PORTS,
  entryOf,
  linkEnv,
  migrateAll,
  SANDBOX,
  SERVICES as DZPAY_SERVICES,
  type ServiceName,
} from '@dzpay/stack';

const root = new URL('../', import.meta.url);
const path = (relative: string) => fileURLToPath(new URL(relative, root));
// The demo's key is shown once at seeding; this file shows it again (a test points it elsewhere).
const DEMO_FILE = process.env.DEMO_FILE ?? path('.dzpay-demo.json');
/** The front door: everything public (the API, payer pages, /dashboard) is reached here. */
const HTTP_PORT = process.env.HTTP_PORT ?? '8080';
/** This machine only, unless HTTP_HOST opens the front door (0.0.0.0) to the network. */
const HTTP_HOST = process.env.HTTP_HOST ?? '127.0.0.1';
/** Behind the front door, on this machine only: the gateway's and the dashboard's ports. */
const GATEWAY_HTTP_PORT = process.env.GATEWAY_HTTP_PORT ?? '8082';
const DASHBOARD_HTTP_PORT = process.env.DASHBOARD_HTTP_PORT ?? '8081';
const HTTP_PORTS: Partial<Record<ServiceName, string>> = {
  gateway: GATEWAY_HTTP_PORT,
  dashboard: DASHBOARD_HTTP_PORT,
};
const SANDBOX_PORT = process.env.SANDBOX_PORT ?? '8600';
const SMTP_PORT = process.env.SMTP_PORT ?? '1025';
const MAIL_DIR = path('.dzpay-mail/');
/** NATS of its own: the machine's on 4222 runs without users. */
const NATS_PORT = process.env.NATS_PORT ?? '4223';
/** Its JetStream store and its users' passwords (git-ignores itself). */
const NATS_DIR = process.env.NATS_DIR ?? path('.dzpay-nats/');
/** The ops port of a service: <NAME>_OPS_PORT (e.g. GATEWAY_OPS_PORT), else its default. */
const opsPortOf = (name: ServiceName) =>
  process.env[`${name.toUpperCase().replace(/-/g, '_')}_OPS_PORT`] ??
  String(DEFAULT_OPS_PORTS[name]);
/** In start order; each is ready (its URL answers 200) before the next starts. */
const SERVICES: { name: ServiceName | typeof SANDBOX; port: string; readyUrl: string }[] = [
  { name: SANDBOX, port: SANDBOX_PORT, readyUrl: `http://127.0.0.1:${SANDBOX_PORT}/healthz` },
  ...DZPAY_SERVICES.map((name) => ({
    name,
    port: opsPortOf(name),
    readyUrl: `http://127.0.0.1:${opsPortOf(name)}/readyz`,
  })),
];

/** What takes requests from outside: the gateway and what starts after it. */
const FRONT = DZPAY_SERVICES.slice(DZPAY_SERVICES.indexOf('gateway'));

interface Demo {
  merchantId: string;
  key: string;
  qrToken: string;
}

const links = {
  gatewayUrl: process.env.PUBLIC_BASE_URL ?? `http://localhost:${HTTP_PORT}`,
  sandboxUrl: process.env.CARDNET_TEST_URL ?? `http://127.0.0.1:${SANDBOX_PORT}`,
  // Seals partner secrets and kept idempotent answers at rest: the one given, else this
  // machine's own, kept under NATS_DIR so that what the CLI sealed opens after a restart.
  secretsKey: process.env.SECRETS_KEY ?? (await localSecretsKey()),
  smtp: { host: process.env.SMTP_HOST ?? '127.0.0.1', port: Number(SMTP_PORT) },
};
/** What every process gets on top of this shell's environment: the ports chosen above. */
const serviceEnv = {
  SANDBOX_PORT,
  // Nothing listens beyond this machine unless asked (HTTP_HOST): the sandbox refunds on
  // request and the ops ports' /metrics answer anyone.
  SANDBOX_HOST: '127.0.0.1',
  OPS_HOST: '127.0.0.1',
  SANDBOX_PUBLIC_URL: process.env.SANDBOX_PUBLIC_URL ?? `http://localhost:${SANDBOX_PORT}`,
};

const mail = process.env.SMTP_HOST ? process.env.SMTP_HOST : await localMailCatcher();

const { DATABASE_URL, NATS_PREFIX } = loadConfig(
  BaseEnv.pick({ DATABASE_URL: true, NATS_PREFIX: true }),
);
await ensureDatabase(DATABASE_URL);
await migrateAll(DATABASE_URL);
const { nats, users } = await securedNats();
/** What a process acting as `user` needs to reach NATS. */
const natsEnv = (user: NatsUser) => ({ NATS_URL: nats.url, NATS_PREFIX, ...users.envOf(user) });

const children: SpawnedProcess[] = [];
let stopping = false;
/** Set once every service is ready; stop() may run before. */
const entrance: { door?: FrontDoor } = {};
for (const service of SERVICES) {
  const child = start(service.name, service.port);
  children.push(child);
  // What could not start stops the rest, which it may need to drain through.
  await waitUntilReady(child, { readyUrl: service.readyUrl, pollIntervalMs: 200 }).catch(
    (error: unknown) => {
      stop();
      throw error;
    },
  );
}
entrance.door = await startFrontDoor({
  host: HTTP_HOST,
  port: Number(HTTP_PORT),
  gatewayUrl: `http://127.0.0.1:${GATEWAY_HTTP_PORT}`,
  dashboardUrl: `http://127.0.0.1:${DASHBOARD_HTTP_PORT}`,
  // The same limits as the services behind (docs/architecture.md, "HTTP limits").
  limits: httpLimitOptions(),
}).catch((error: unknown) => {
  stop();
  throw error;
});
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
  dashboard             ${base}/dashboard
  card network sandbox  http://localhost:${SANDBOX_PORT} (test cards: docs/cardnet-sandbox.md)
  emails                ${mail} (receipts, invitations, password resets)
  NATS (secured)        ${nats.url}, users in ${join(NATS_DIR, 'users.json')}; the admin CLI:
                        env $(cat ${join(NATS_DIR, 'cli.env')}) pnpm dzpay …
  ops ports             ${SERVICES.slice(1)
    .map((service) => `${service.name} ${service.readyUrl}`)
    .join(', ')}
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

/**
 * Receipts need a mail server. One listening on SMTP_PORT (mailpit from compose, say) is
 * used as it is; otherwise a built-in catcher takes the emails and saves their HTML.
 */
async function localMailCatcher(): Promise<string> {
  const listening = await new Promise<boolean>((resolve) => {
    const socket = createConnection(Number(SMTP_PORT), '127.0.0.1');
    socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
    setTimeout(() => resolve(false), 500).unref();
    socket.unref();
  });
  if (listening) return `the mail server on 127.0.0.1:${SMTP_PORT}`;
  await privateDir(MAIL_DIR);
  const catcher = await startMailCatcher({
    port: Number(SMTP_PORT),
    onMessage: (message) => {
      const file = `${MAIL_DIR}${Date.now()}.html`;
      const html = typeof message.html === 'string' ? message.html : '';
      void writeFile(file, html, { mode: 0o600 }).then(() => console.log(`email saved: ${file}`));
    },
  });
  process.once('exit', () => void catcher.close());
  return `saved under ${MAIL_DIR} (built-in catcher on 127.0.0.1:${SMTP_PORT})`;
}

/**
 * Stops the front first (the gateway and what starts after it: their in-flight requests
 * still need the others), then the rest, and exits once every service has: the mail
 * catcher and timers must not keep the command alive until a second Ctrl-C.
 */
function stop(): void {
  if (stopping) return;
  stopping = true;
  // The front door first (no new requests), NATS last: the services drain through it
  // (it runs out of reach of Ctrl-C).
  void entrance.door?.close();
  void Promise.all(children.map((child) => child.exited()))
    .then(() => nats.stop())
    .finally(() => process.exit());
  const isFront = (child: SpawnedProcess) => FRONT.some((name) => name === child.name);
  const front = children.filter(isFront);
  for (const child of front) child.kill('SIGTERM');
  void Promise.all(front.map((child) => child.exited())).then(() => {
    for (const child of children) if (!isFront(child)) child.kill('SIGTERM');
  });
}

function start(name: ServiceName | typeof SANDBOX, port: string): SpawnedProcess {
  const linked = name === SANDBOX ? {} : { ...linkEnv(name, links), ...natsEnv(name) };
  const child = spawnNode({
    name,
    entry: entryOf(name),
    env: {
      ...serviceEnv,
      // The gateway and the dashboard listen on this machine only, behind the front door,
      // whose X-Forwarded-For they believe (one hop).
      ...(name !== SANDBOX && HTTP_PORTS[name]
        ? { HTTP_PORT: HTTP_PORTS[name], HTTP_HOST: '127.0.0.1', TRUST_PROXY_HOPS: '1' }
        : {}),
      ...linked,
      DATABASE_URL,
      OPS_PORT: port,
    },
    echo: 'inherit',
  });
  void child.exited().then(({ code, signal }) => {
    console.log(`${name} exited (${signal ?? code})`);
    // A service that ends on its own stops the rest and makes the command fail.
    if (!stopping) process.exitCode = code || 1;
    else if (code) process.exitCode = code;
    stop();
  });
  return child;
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
  await cli('merchant', 'configure', merchant.id, '--wallet', 'demo-wallet', '--fee', '50');
  const key = await cli<{ key: string }>('key', 'issue', merchant.id, '--mode', 'test');
  const qr = await cli<{ token: string }>('qr', 'create', merchant.id, '--mode', 'test');
  const demo = { merchantId: merchant.id, key: key.key, qrToken: qr.token };
  await writeFile(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}

function cli<T>(...args: string[]): Promise<T> {
  return runAdminCli<T>({ DATABASE_URL, ...natsEnv('cli') }, args);
}

/**
 * This machine's NATS for dzpay, on NATS_PORT with its store under NATS_DIR: the users of
 * the last run are kept (users.json), the permissions regenerated from the code each start.
 */
async function securedNats(): Promise<{ nats: LocalNatsServer; users: LocalNatsUsers }> {
  await privateDir(NATS_DIR);
  await mkdir(join(NATS_DIR, 'store'), { recursive: true, mode: 0o700 });
  // Whatever lands here stays out of git, without an entry in the repository's .gitignore.
  await writeFile(join(NATS_DIR, '.gitignore'), '*\n');
  const usersFile = join(NATS_DIR, 'users.json');
  const known = existsSync(usersFile)
    ? (JSON.parse(await readFile(usersFile, 'utf8')) as Record<string, string>)
    : {};
  const users = localNatsUsers(NATS_PREFIX, { known });
  const passwords = Object.fromEntries(
    [...Object.values(users.users), users.admin].map(({ user, password }) => [user, password]),
  );
  await writeFile(usersFile, `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600 });
  const nats = await startSecuredNatsServer({
    port: Number(NATS_PORT),
    storeDir: join(NATS_DIR, 'store'),
    name: 'dzpay-start',
    authorization: users.authorization,
    probe: users.admin,
    ownProcessGroup: true,
  });
  // All the admin CLI needs, so `env $(cat cli.env) pnpm dzpay …` seals under this run's key.
  const cliEnv = {
    NATS_URL: nats.url,
    NATS_PREFIX,
    ...users.envOf('cli'),
    DATABASE_URL,
    SECRETS_KEY: links.secretsKey,
  };
  await writeFile(
    join(NATS_DIR, 'cli.env'),
    Object.entries(cliEnv)
      .map(([key, value]) => `${key}=${value}\n`)
      .join(''),
    { mode: 0o600 },
  );
  return { nats, users };
}

/** SECRETS_KEY for runs that set none: made once (32 random bytes), then read again. */
async function localSecretsKey(): Promise<string> {
  await privateDir(NATS_DIR);
  const file = join(NATS_DIR, 'secrets.key');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const key = randomBytes(32).toString('base64');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * A folder of this run's secrets and mail (passwords, receipts with payers' emails),
 * readable by its owner only, also when an older run made it open.
 */
async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}
