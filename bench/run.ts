import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, connectPostgres, type NatsConnection } from '@dzpay/platform';
import { entryOf, linkEnv, SANDBOX, type ServiceName, type StackLinks } from '@dzpay/stack';
import autocannon from 'autocannon';
import { startCpuProbe } from './cpu.ts';
import { freePort, startNode, type NodeProcess } from './processes.ts';
import { measureRedisDown, type Measured, type RedisDownRow } from './redis-down.ts';
import {
  checkList,
  firstPagePlan,
  listOptions,
  seedPayments,
  type ListMerchant,
} from './payments-list.ts';
import {
  measureEventLag,
  measurePaymentLag,
  startProductPartner,
  seedLockedReferences,
  type LagSummary,
  type StatusBenchDeps,
} from './status.ts';
import {
  measureWebhooks,
  registerBenchPartner,
  startBenchPartner,
  type WebhookSummary,
} from './webhooks.ts';

// `pnpm bench`: a bare Fastify hello-world against POST /set-qr-config, payment
// registration and the payment status query through the real gateway, services, NATS
// and Postgres, the status projection's lag, webhook deliveries to a local partner, and
// the status query and set-qr-config with the gateway's Redis up and then killed, on
// this machine, in one run. BENCH_ONLY=redis-down runs the last alone. See
// docs/benchmarks.md.

const env = process.env;
const seconds = positiveInt('BENCH_SECONDS', 10);
const warmupSeconds = positiveInt('BENCH_WARMUP_SECONDS', 3);
const connections = positiveInt('BENCH_CONNECTIONS', 10);
const qrCodes = positiveInt('BENCH_QR_CODES', 50);
const statusReferences = positiveInt('BENCH_STATUS_REFERENCES', 40);
const lagSamples = positiveInt('BENCH_LAG_SAMPLES', 300);
const lagGapMs = positiveInt('BENCH_LAG_GAP_MS', 5);
const webhookEvents = positiveInt('BENCH_WEBHOOK_EVENTS', 3_000);
const webhookWarmup = positiveInt('BENCH_WEBHOOK_WARMUP', 300);
const webhookConcurrency = positiveInt('BENCH_WEBHOOK_CONCURRENCY', 64);
const listPayments = positiveInt('BENCH_LIST_PAYMENTS', 1_000_000);
const only = benchOnly();
const TARGET_RATIO = 0.25;
const TARGET_STATUS_RATIO = 0.35;
const TARGET_LAG_P99_MS = 50;
const TARGET_DELIVERIES_PER_SEC = 1_000;

const adminUrl = env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const id = randomBytes(4).toString('hex');
const database = `dzpay_bench_${id}`;
const databaseUrl = new URL(adminUrl);
databaseUrl.pathname = `/${database}`;
// Seals the product partner's API secret (CLI) and opens it (gateway).
const secretsKey = randomBytes(32).toString('base64');
const serviceEnv = {
  DATABASE_URL: databaseUrl.href,
  NATS_URL: env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222',
  NATS_PREFIX: `bench_${id}`,
  REDIS_URL: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  // Only rate-limit counters land here; they expire with their one-minute window.
  REDIS_PREFIX: `bench:${id}:`,
  OPS_HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
};

/** Every bench gateway: limiters that count but never refuse. */
const GATEWAY_ENV = {
  HTTP_HOST: '127.0.0.1',
  RATE_LIMIT_PER_MINUTE: '100000000',
  STATUS_RATE_LIMIT_PER_MINUTE: '100000000',
};

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const admin = connectPostgres(adminUrl, 'public', 1);
const children: NodeProcess[] = [];
/** How this run's services reach each other (set once the ports are known). */
let links: StackLinks | undefined;
let nats: NatsConnection | undefined;
const partners: { close(): Promise<void> }[] = [];

let cleaning: Promise<void> | undefined;
const cleanup = () =>
  (cleaning ??= (async () => {
    for (const child of children.reverse()) await child.stop();
    for (const partner of partners) await partner.close();
    if (nats) await deleteStreams(nats);
    await nats?.close();
    await admin.unsafe(`drop database if exists "${database}" with (force)`);
    await admin.end();
  })());

// Ctrl-C mid-run still stops the services and drops the database.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));
}

try {
  await admin.unsafe(`create database "${database}"`);
  nats = await connectNats(serviceEnv.NATS_URL, 'bench');
  const httpPort = await freePort();
  const publicBaseUrl = `http://127.0.0.1:${httpPort}`;
  // The card network sandbox answers at once (no delay): the bench measures dzpay.
  const sandboxPort = await freePort();
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  links = { gatewayUrl: publicBaseUrl, sandboxUrl, secretsKey };
  const qrConfig = await startService('qr-config');
  children.push(qrConfig);
  children.push(
    await startNode(
      'cardnet-sandbox',
      entryOf(SANDBOX),
      { SANDBOX_PORT: String(sandboxPort), SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      `${sandboxUrl}/healthz`,
    ),
  );
  children.push(await startService('payments'));
  const statusService = await startService('status');
  children.push(statusService);
  // The gateway opens the product partner's secret for the full-path lag (/pay pages).
  const gateway = await startService('gateway', { HTTP_PORT: String(httpPort), ...GATEWAY_ENV });
  children.push(gateway);

  const { merchantId, key, tokens } = await seed();
  const gatewayUrl = `http://127.0.0.1:${httpPort}/set-qr-config`;
  await checkOneRequest(gatewayUrl, key, tokens[0]!);
  const run = randomBytes(3).toString('hex');
  const status: StatusBenchDeps = {
    nats,
    prefix: serviceEnv.NATS_PREFIX,
    scope: { merchantId, mode: 'test' },
  };
  const references = Array.from({ length: statusReferences }, (_, i) => `PRODUCT-${run}-${i}`);
  /** The stack's Redis up, then down: the same scenarios through a gateway of its own. */
  const redisDown = async () => {
    const scenarios = {
      'status-query': (baseUrl: string) => statusQueryOptions(baseUrl, key, references),
      'set-qr-config': (baseUrl: string) => setQrConfigOptions(baseUrl, key, tokens),
    };
    return measureRedisDown({
      startGateway: (extra) => startService('gateway', { ...GATEWAY_ENV, ...extra }),
      measure,
      scenarios,
      async check(baseUrl) {
        await checkOneRequest(`${baseUrl}/set-qr-config`, key, tokens[0]!);
        await checkStatusQuery(`${baseUrl}${statusPath(references[0]!)}`, key);
      },
      pids: { 'qr-config': qrConfig.pid, status: statusService.pid },
    });
  };

  if (only === 'redis-down') {
    await seedLockedReferences(status, references);
    reportRedisDown(await redisDown());
  } else if (only === 'payments-list') {
    const helloWorld = await measureServer(
      'hello-world',
      './hello-world.ts',
      {},
      { method: 'GET' },
    );
    reportPaymentsList(helloWorld, await paymentsListRows());
  } else {
    await everyScenario();
  }

  async function everyScenario(): Promise<void> {
    const helloWorld = await measureServer(
      'hello-world',
      './hello-world.ts',
      {},
      { method: 'GET' },
    );
    const natsHop = await measureServer(
      'nats-hop',
      './nats-hop.ts',
      { NATS_URL: serviceEnv.NATS_URL, NATS_PREFIX: serviceEnv.NATS_PREFIX },
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
    );

    const setQrConfig = await measure(
      'set-qr-config',
      setQrConfigOptions(publicBaseUrl, key, tokens),
    );
    // Each registration needs a reference of its own (a repeated one is a 409).
    let order = 0;
    const registerPayment = await measure('register-payment', {
      url: `${publicBaseUrl}/api/v1/payments`,
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({
              amount: 250_000,
              currency: 'DZD',
              reference: `BENCH-${run}-${order++}`,
              successUrl: 'https://shop.example/ok',
            }),
          }),
        },
      ],
    });

    // The references must exist before they are asked for: one locking AGENCY attempt
    // each, published to PAYMENTS, projected by status.
    await seedLockedReferences(status, references);
    await checkStatusQuery(`${publicBaseUrl}${statusPath(references[0]!)}`, key);
    const statusQuery = await measure(
      'status-query',
      statusQueryOptions(publicBaseUrl, key, references),
    );

    // Lags are measured with no load from the bench on the stack, one event at a time.
    console.log(`status lag: ${lagSamples} events published one at a time, ${lagGapMs} ms apart`);
    const eventLag = await measureEventLag(status, run, lagSamples, lagGapMs);
    console.log(`status lag (full path): ${lagSamples} product payments started one at a time`);
    const products = await startProductPartner();
    partners.push(products);
    await cli('merchant', 'partner', merchantId, '--mode', 'test', '--api-url', products.url);
    const paymentLag = await measurePaymentLag(status, publicBaseUrl, run, lagSamples, lagGapMs);
    const failures = children.map((child) => child.failure()).filter(Boolean);
    if (failures.length > 0) throw new Error(`status lag run is void: ${failures.join('; ')}`);

    const webhooks = await measureWebhookDeliveries({ merchantId, mode: 'test' }, run);
    const listRows = await paymentsListRows();
    // Last: a gateway and a Redis of its own, both stopped when it ends.
    const redisDownRows = await redisDown();

    report(
      { helloWorld, natsHop, setQrConfig, registerPayment, statusQuery },
      { event: eventLag, payment: paymentLag },
      webhooks,
    );
    reportRedisDown(redisDownRows);
    reportPaymentsList(helloWorld, listRows);
  }

  /**
   * payments-list: a merchant with BENCH_LIST_PAYMENTS payments (a million) and one with
   * ten, each listing its newest 20 through the gateway, NATS and payments.
   */
  async function paymentsListRows(): Promise<Record<string, autocannon.Result>> {
    const payments = connectPostgres(databaseUrl.href, 'payments', 1);
    try {
      const merchants: Record<string, ListMerchant & { count: number }> = {};
      for (const [title, count] of [
        [`payments-list (${listPayments} payments)`, listPayments],
        ['payments-list (10 payments)', 10],
      ] as const) {
        const made = await cli<{ id: string }>('merchant', 'create', `List ${count}`);
        const { key } = await cli<{ key: string }>('key', 'issue', made.id, '--mode', 'test');
        const ms = await seedPayments(payments, made.id, count);
        console.log(`${title}: seeded in ${ms} ms`);
        merchants[title] = { merchantId: made.id, key, count };
      }
      const rows: Record<string, autocannon.Result> = {};
      for (const [title, merchant] of Object.entries(merchants)) {
        await checkList(publicBaseUrl, merchant, merchant.count);
        console.log(
          `${title} first page plan:\n${await firstPagePlan(payments, merchant.merchantId)}`,
        );
        rows[title] = await measure(title, listOptions(publicBaseUrl, merchant));
      }
      return rows;
    } finally {
      await payments.end();
    }
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await cleanup();
}

/** BENCH_ONLY: one scenario alone (redis-down, payments-list), or every scenario when unset. */
function benchOnly(): 'redis-down' | 'payments-list' | undefined {
  const value = env.BENCH_ONLY;
  if (value === undefined || value === '') return undefined;
  if (value === 'redis-down' || value === 'payments-list') return value;
  throw new Error(
    `BENCH_ONLY must be redis-down or payments-list (or unset for every scenario), not ${value}`,
  );
}

/** The payments-list rows: req/s, latencies and the ratio to hello-world of the same run. */
function reportPaymentsList(
  helloWorld: autocannon.Result,
  rows: Record<string, autocannon.Result>,
): void {
  const table = Object.fromEntries(
    Object.entries(rows).map(([title, result]) => [
      title,
      {
        reqPerSec: Math.round(result.requests.average),
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
        ratio: Number((result.requests.average / helloWorld.requests.average).toFixed(4)),
      },
    ]),
  );
  console.table({
    'hello-world': { reqPerSec: Math.round(helloWorld.requests.average) },
    ...table,
  });
  for (const [title, row] of Object.entries(table)) {
    if (row.non2xx > 0 || row.errors > 0)
      console.warn(`WARNING: ${title} had ${row.non2xx} non-2xx answers, ${row.errors} errors`);
  }
  const machine = { cores: cpus().length, load1: Number(loadavg()[0]!.toFixed(2)) };
  console.log(
    JSON.stringify({
      paymentsList: {
        seconds,
        connections,
        ...machine,
        helloWorld: Math.round(helloWorld.requests.average),
        ...table,
      },
    }),
  );
}

function positiveInt(name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

/**
 * The webhook dispatcher (started only now, so it loads no earlier scenario) delivering
 * a burst of payment outcomes to a partner in this process that verifies every request
 * with the partner SDK. A warmup burst first, then the measured one.
 */
async function measureWebhookDeliveries(
  scope: { merchantId: string; mode: 'test' },
  run: string,
): Promise<WebhookSummary> {
  const secretsKey = randomBytes(32);
  children.push(
    await startService('webhook-dispatcher', {
      SECRETS_KEY: secretsKey.toString('base64'),
      WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(webhookConcurrency),
      SCHEDULER_INTERVAL_MS: '50',
    }),
  );
  const signingSecret = randomBytes(24).toString('base64url');
  const local = await startBenchPartner(signingSecret);
  partners.push(local);
  const deps = { nats: nats!, prefix: serviceEnv.NATS_PREFIX, secretsKey, scope };
  await registerBenchPartner(deps, {
    apiUrl: local.url,
    apiSecret: randomBytes(24).toString('base64url'),
    signingSecret,
  });
  console.log(
    `webhooks: ${webhookWarmup} events warmup, then ${webhookEvents} events, ` +
      `${webhookConcurrency} attempts in flight per endpoint`,
  );
  const warmup = await measureWebhooks(deps, local, `${run}-warmup`, webhookWarmup);
  if (warmup.delivered < warmup.events) {
    throw new Error(`webhooks warmup: ${warmup.delivered} of ${warmup.events} delivered`);
  }
  const result = await measureWebhooks(deps, local, run, webhookEvents);
  const failures = children.map((child) => child.failure()).filter(Boolean);
  if (failures.length > 0) throw new Error(`webhooks run is void: ${failures.join('; ')}`);
  return result;
}

/** Starts a reference server, measures it, and stops it before the next measurement. */
async function measureServer(
  title: string,
  entry: string,
  extraEnv: Record<string, string>,
  request: Pick<autocannon.Options, 'method' | 'headers' | 'body'>,
): Promise<autocannon.Result> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const server = await startNode(title, path(entry), { HTTP_PORT: String(port), ...extraEnv }, url);
  children.push(server);
  const result = await measure(title, { url, ...request });
  // Idle or not, a reference server gets out of the way before the next run.
  await server.stop();
  return result;
}

/** A service of the stack, linked to this run's gateway, sandbox and secrets key. */
async function startService(name: ServiceName, extra: Record<string, string> = {}) {
  const opsPort = await freePort();
  if (!links) throw new Error('the stack links are set before any service starts');
  return startNode(
    name,
    entryOf(name),
    { ...serviceEnv, ...linkEnv(name, links), ...extra, OPS_PORT: String(opsPort) },
    `http://127.0.0.1:${opsPort}/readyz`,
  );
}

/** A merchant, a test key and the QR codes, made the way an operator would: the CLI. */
async function seed(): Promise<{ merchantId: string; key: string; tokens: string[] }> {
  const merchant = await cli<{ id: string }>('merchant', 'create', 'Bench merchant');
  await cli('merchant', 'configure', merchant.id, '--wallet', 'bench-wallet');
  const { key } = await cli<{ key: string }>('key', 'issue', merchant.id, '--mode', 'test');
  const tokens: string[] = [];
  // A few at a time: each call is a whole node process, and there are two cores.
  while (tokens.length < qrCodes) {
    const batch = Math.min(4, qrCodes - tokens.length);
    const codes = await Promise.all(
      Array.from({ length: batch }, () =>
        cli<{ token: string }>('qr', 'create', merchant.id, '--mode', 'test'),
      ),
    );
    tokens.push(...codes.map((code) => code.token));
  }
  console.log(`seeded merchant ${merchant.id} with ${tokens.length} QR codes`);
  return { merchantId: merchant.id, key, tokens };
}

async function cli<T>(...args: string[]): Promise<T> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path('../services/gateway/src/cli/main.ts'), '--json', ...args],
    {
      env: {
        ...env,
        ...serviceEnv,
        SECRETS_KEY: secretsKey,
        PARTNER_API_SECRET: randomBytes(24).toString('base64url'),
      },
    },
  );
  return JSON.parse(stdout) as T;
}

/**
 * set-qr-config: each request takes the next token, so concurrent requests update
 * different rows, as different merchants' QR codes would, instead of queueing on one
 * row's lock.
 */
function setQrConfigOptions(baseUrl: string, key: string, tokens: string[]): autocannon.Options {
  let next = 0;
  return {
    url: `${baseUrl}/set-qr-config`,
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: requestBody(tokens[next++ % tokens.length]!),
        }),
      },
    ],
  };
}

function statusPath(reference: string): string {
  return `/partner/payments/v1/${reference}/status`;
}

/** The status query, each request for the next seeded reference. */
function statusQueryOptions(
  baseUrl: string,
  key: string,
  references: string[],
): autocannon.Options {
  let asked = 0;
  return {
    url: baseUrl,
    method: 'GET',
    headers: { 'x-api-key': key },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          path: statusPath(references[asked++ % references.length]!),
        }),
      },
    ],
  };
}

function requestBody(token: string): string {
  return JSON.stringify({ token, amounts: [1500, 2500.5], singleUse: false });
}

/** Fails fast, with the gateway's answer, rather than benchmarking a stream of errors. */
async function checkOneRequest(url: string, key: string, token: string): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: requestBody(token),
  });
  if (!response.ok) {
    throw new Error(`set-qr-config answered ${response.status}: ${await response.text()}`);
  }
}

/** The first status query must answer 200 with the seeded reference `locked`. */
async function checkStatusQuery(url: string, key: string): Promise<void> {
  const response = await fetch(url, { headers: { 'x-api-key': key } });
  const text = await response.text();
  if (
    !response.ok ||
    (JSON.parse(text) as { data?: { stage?: string } }).data?.stage !== 'locked'
  ) {
    throw new Error(`status query answered ${response.status}: ${text}`);
  }
}

/** The streams the services created under the bench's prefix, with their events. */
async function deleteStreams(nc: NatsConnection): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for await (const name of jsm.streams.names()) {
    // KV_<prefix>_PARTNERS: the partner directory bucket the webhooks scenario wrote.
    const ours = [`${serviceEnv.NATS_PREFIX}_`, `KV_${serviceEnv.NATS_PREFIX}_`];
    if (ours.some((start) => name.startsWith(start))) await jsm.streams.delete(name);
  }
}

/**
 * Warmup, then the measured run; `cpuOf` names processes whose CPU time is read from
 * /proc around the measured run (µs per request).
 */
async function measure(
  title: string,
  options: Omit<autocannon.Options, 'duration' | 'connections'>,
  cpuOf: Record<string, number> = {},
): Promise<Measured> {
  console.log(`${title}: ${warmupSeconds} s warmup, then ${seconds} s with ${connections} conns`);
  await autocannon({ ...options, connections, duration: warmupSeconds });
  const probe = startCpuProbe(cpuOf);
  const result = await autocannon({ ...options, connections, duration: seconds });
  const cpuUsPerRequest = probe(result.requests.total);
  const failures = children.map((child) => child.failure()).filter(Boolean);
  if (failures.length > 0) throw new Error(`${title} run is void: ${failures.join('; ')}`);
  return Object.assign(result, { cpuUsPerRequest });
}

/**
 * The redis-down rows: each scenario with the gateway's Redis up and down, the ratio
 * of their rates, and the CPU per request of each process on the path.
 */
function reportRedisDown(rows: Record<string, RedisDownRow>): void {
  const line = (result: Measured) => ({
    reqPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  });
  const table: Record<string, ReturnType<typeof line>> = {};
  const cpu: Record<string, Record<string, number>> = {};
  for (const [name, row] of Object.entries(rows)) {
    table[`${name} (redis up)`] = line(row.up);
    table[`${name} (redis down)`] = line(row.down);
    cpu[`${name} (redis up)`] = row.up.cpuUsPerRequest;
    cpu[`${name} (redis down)`] = row.down.cpuUsPerRequest;
  }
  console.table(table);
  console.log('CPU µs per request, per process:');
  console.table(cpu);
  for (const [name, row] of Object.entries(rows)) {
    console.log(`ratio ${name} redis down / redis up = ${row.ratio}`);
  }
  for (const [title, result] of Object.entries(table)) {
    if (result.non2xx > 0 || result.errors > 0) {
      console.warn(
        `WARNING: ${title} had ${result.non2xx} non-2xx answers, ${result.errors} errors`,
      );
    }
  }
  const ratios = Object.fromEntries(Object.entries(rows).map(([name, row]) => [name, row.ratio]));
  const machine = { cores: cpus().length, load1: Number(loadavg()[0]!.toFixed(2)) };
  console.log(
    JSON.stringify({ redisDown: { seconds, connections, ...machine, ...table, cpu, ratios } }),
  );
}

function report(
  results: {
    helloWorld: autocannon.Result;
    natsHop: autocannon.Result;
    setQrConfig: autocannon.Result;
    registerPayment: autocannon.Result;
    statusQuery: autocannon.Result;
  },
  lag: { event: LagSummary; payment: LagSummary },
  webhooks: WebhookSummary,
): void {
  const summary = (result: autocannon.Result) => ({
    reqPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    ratio: Number((result.requests.average / results.helloWorld.requests.average).toFixed(3)),
  });
  const rows = {
    'hello-world': summary(results.helloWorld),
    'nats-hop': summary(results.natsHop),
    'set-qr-config': summary(results.setQrConfig),
    'register-payment': summary(results.registerPayment),
    'status-query': summary(results.statusQuery),
  };
  console.table(rows);
  const lags = { 'status-lag': lag.event, 'status-lag-full-path': lag.payment };
  console.table(lags);

  const ratio = rows['set-qr-config'].ratio;
  const verdict = (met: boolean) => (met ? 'meets' : 'MISSES');
  console.log(
    `ratio set-qr-config / hello-world = ${ratio} (${verdict(ratio >= TARGET_RATIO)} target ${TARGET_RATIO})`,
  );
  const statusRatio = rows['status-query'].ratio;
  console.log(
    `ratio status-query / hello-world = ${statusRatio} (${verdict(statusRatio >= TARGET_STATUS_RATIO)} target ${TARGET_STATUS_RATIO})`,
  );
  console.log(
    `ratio nats-hop / hello-world = ${rows['nats-hop'].ratio} (the most any path through the gateway and NATS can reach here)`,
  );
  for (const [title, summary] of Object.entries(lags)) {
    const met = summary.p99Ms < TARGET_LAG_P99_MS;
    console.log(
      `${title} p99 = ${summary.p99Ms} ms (${verdict(met)} target < ${TARGET_LAG_P99_MS} ms)`,
    );
  }
  const webhookRatio = Number(
    (webhooks.deliveriesPerSec / results.helloWorld.requests.average).toFixed(4),
  );
  const webhookRow = { ...webhooks, ratio: webhookRatio };
  console.table({ webhooks: webhookRow });
  console.log(
    `webhooks = ${webhooks.deliveriesPerSec} deliveries/s, enqueue-to-2xx p50 ${webhooks.p50Ms} ms, ` +
      `p99 ${webhooks.p99Ms} ms, ratio to hello-world = ${webhookRatio} ` +
      `(${verdict(webhooks.deliveriesPerSec >= TARGET_DELIVERIES_PER_SEC)} target ` +
      `${TARGET_DELIVERIES_PER_SEC} deliveries/s)`,
  );
  if (webhooks.delivered < webhooks.events || webhooks.rejected > 0) {
    console.warn(
      `WARNING: webhooks delivered ${webhooks.delivered} of ${webhooks.events} events, ` +
        `${webhooks.rejected} requests rejected by the partner SDK`,
    );
  }
  for (const [title, row] of Object.entries(rows)) {
    if (row.non2xx > 0 || row.errors > 0) {
      console.warn(`WARNING: ${title} had ${row.non2xx} non-2xx answers, ${row.errors} errors`);
    }
  }
  // Both servers share the machine with autocannon and with whatever else runs: the
  // core count and load average say how much to trust the numbers.
  const machine = { cores: cpus().length, load1: Number(loadavg()[0]!.toFixed(2)) };
  console.log(
    JSON.stringify({
      seconds,
      connections,
      ...machine,
      ...rows,
      ...lags,
      webhooks: webhookRow,
      ratio,
      statusRatio,
    }),
  );
}
