import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, connectPostgres, type NatsConnection } from '@dzpay/platform';
import { entryOf, linkEnv, SANDBOX, type ServiceName, type StackLinks } from '@dzpay/stack';
import autocannon from 'autocannon';
import { pidsNamed, startCpuProbe, type CpuPerRequest, type ProcessRef } from './cpu.ts';
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
  publishBurst,
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
const burstEvents = positiveInt('BENCH_BURST_EVENTS', 3_000);
/** Issue 15's targets: ratios to the nats-hop floor of the same run, p99s in ms. */
const TARGETS = {
  'status-query': { hopRatio: 0.6, p99Ms: 10 },
  'set-qr-config': { hopRatio: 0.45 },
  'register-payment': { hopRatio: 0.12, p99Ms: 30 },
} as const satisfies Record<string, { hopRatio: number; p99Ms?: number }>;
const TARGET_LAG_P99_MS = 20;
const TARGET_WEBHOOK_RATIO = 0.035;
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
/** The processes whose CPU time each measured run reads from /proc (filled as they start). */
const stackCpu: Record<string, ProcessRef> = {};
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
  const sandbox = await startNode(
    'cardnet-sandbox',
    entryOf(SANDBOX),
    { SANDBOX_PORT: String(sandboxPort), SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    `${sandboxUrl}/healthz`,
  );
  children.push(sandbox);
  const paymentsService = await startService('payments');
  children.push(paymentsService);
  const statusService = await startService('status');
  children.push(statusService);
  // The gateway opens the product partner's secret for the full-path lag (/pay pages).
  const gateway = await startService('gateway', { HTTP_PORT: String(httpPort), ...GATEWAY_ENV });
  children.push(gateway);
  Object.assign(stackCpu, {
    gateway: gateway.pid,
    'qr-config': qrConfig.pid,
    payments: paymentsService.pid,
    status: statusService.pid,
    sandbox: sandbox.pid,
    // The machine's servers, every process of each (Postgres has one per connection).
    postgres: () => pidsNamed('postgres'),
    nats: () => pidsNamed('nats-server'),
    redis: () => pidsNamed('redis-server'),
    // autocannon runs in this process: the load generator's share of the cores.
    bench: process.pid,
  });

  const { merchantId, key, tokens } = await seed();
  const gatewayUrl = `http://127.0.0.1:${httpPort}/set-qr-config`;
  await checkOneRequest(gatewayUrl, key, tokens[0]!);
  const run = randomBytes(3).toString('hex');
  const status: StatusBenchDeps = {
    nats,
    prefix: serviceEnv.NATS_PREFIX,
    scope: { merchantId, mode: 'test' },
  };
  // The full-path lags ask the public endpoint, as a partner would.
  const asPartner: StatusBenchDeps = { ...status, gateway: { baseUrl: publicBaseUrl, key } };
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
      stackCpu,
    );
    const registerPayment = await measure(
      'register-payment',
      registerPaymentOptions(publicBaseUrl, key, `${run}-r`),
      stackCpu,
    );

    // The references must exist before they are asked for: one locking AGENCY attempt
    // each, published to PAYMENTS, projected by status.
    await seedLockedReferences(status, references);
    await checkStatusQuery(`${publicBaseUrl}${statusPath(references[0]!)}`, key);
    const statusQuery = await measure(
      'status-query',
      statusQueryOptions(publicBaseUrl, key, references),
      stackCpu,
    );

    // Lags are measured with no load from the bench on the stack, one event at a time.
    console.log(`status lag: ${lagSamples} events published one at a time, ${lagGapMs} ms apart`);
    const eventLag = await measureEventLag(status, run, lagSamples, lagGapMs);
    console.log(`status lag (full path): ${lagSamples} product payments started one at a time`);
    const products = await startProductPartner();
    partners.push(products);
    await cli('merchant', 'partner', merchantId, '--mode', 'test', '--api-url', products.url);
    const samples = (taken: number) => taken < lagSamples;
    const paymentLag = await measurePaymentLag(asPartner, publicBaseUrl, run, samples, lagGapMs);
    const underLoad = await lagUnderRegisterLoad(registerPayment.requests.average / 2, samples);
    const duringBurst = await lagDuringBurst();
    const failures = children.map((child) => child.failure()).filter(Boolean);
    if (failures.length > 0) throw new Error(`status lag run is void: ${failures.join('; ')}`);

    const webhooks = await measureWebhookDeliveries({ merchantId, mode: 'test' }, run);
    const listRows = only === 'paths' ? undefined : await paymentsListRows();
    // Last: a gateway and a Redis of its own, both stopped when it ends.
    const redisDownRows = only === 'paths' ? undefined : await redisDown();

    report(
      { helloWorld, natsHop, setQrConfig, registerPayment, statusQuery },
      {
        'status-lag': eventLag,
        'status-lag-full-path': paymentLag,
        'full-path, register-payment at half rate': underLoad,
        [`full-path, during a ${burstEvents}-event burst`]: duringBurst,
      },
      webhooks,
    );
    if (redisDownRows) reportRedisDown(redisDownRows);
    if (listRows) reportPaymentsList(helloWorld, listRows);
  }

  /**
   * The full-path lag while register-payment runs at `rate` requests per second (half
   * the rate it reached alone): autocannon keeps that rate up until the samples are in.
   */
  async function lagUnderRegisterLoad(
    rate: number,
    more: (taken: number) => boolean,
  ): Promise<LagSummary & { loadReqPerSec: number; loadNon2xx: number }> {
    const overallRate = Math.max(1, Math.round(rate));
    console.log(`status lag (full path) while register-payment runs at ${overallRate} req/s`);
    const load = autocannon({
      ...registerPaymentOptions(publicBaseUrl, key, `${run}-l`),
      connections,
      overallRate,
      duration: 600,
    }) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
    // Let the load settle before the first sample.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    try {
      const lag = await measurePaymentLag(asPartner, publicBaseUrl, `${run}-l`, more, lagGapMs);
      load.stop();
      const result = await load;
      return {
        ...lag,
        loadReqPerSec: Math.round(result.requests.average),
        loadNon2xx: result.non2xx + result.errors + result.timeouts,
      };
    } finally {
      load.stop();
    }
  }

  /**
   * The full-path lag while status projects a burst of BENCH_BURST_EVENTS events: one
   * sample after another from the burst's first publish until its last event is visible.
   */
  async function lagDuringBurst(): Promise<LagSummary & { burstProjectedMs: number }> {
    console.log(`status lag (full path) during a burst of ${burstEvents} events`);
    let projected = false;
    const burst = publishBurst(status, `${run}-b`, burstEvents).finally(() => (projected = true));
    // At least one sample, even if the burst is projected before the first one ends.
    const lag = await measurePaymentLag(
      asPartner,
      publicBaseUrl,
      `${run}-b`,
      (taken) => taken === 0 || !projected,
      lagGapMs,
    );
    const { projectedMs } = await burst;
    return { ...lag, burstProjectedMs: projectedMs };
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

/**
 * BENCH_ONLY: one scenario alone (redis-down, payments-list), the paths without those
 * two (paths), or every scenario when unset.
 */
function benchOnly(): 'redis-down' | 'payments-list' | 'paths' | undefined {
  const value = env.BENCH_ONLY;
  if (value === undefined || value === '') return undefined;
  if (value === 'redis-down' || value === 'payments-list' || value === 'paths') return value;
  throw new Error(
    `BENCH_ONLY must be redis-down, payments-list or paths (or unset for every scenario), not ${value}`,
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
): Promise<WebhookSummary & { cpuUsPerDelivery: CpuPerRequest }> {
  const secretsKey = randomBytes(32);
  const dispatcher = await startService('webhook-dispatcher', {
    SECRETS_KEY: secretsKey.toString('base64'),
    WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(webhookConcurrency),
    SCHEDULER_INTERVAL_MS: '50',
  });
  children.push(dispatcher);
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
  // Every process the burst keeps busy: the dispatcher, the projections reading the same
  // events, the servers, and the partner (in this process, with the publisher).
  const probe = startCpuProbe({ 'webhook-dispatcher': dispatcher.pid, ...stackCpu });
  const result = await measureWebhooks(deps, local, run, webhookEvents);
  const cpuUsPerDelivery = withTotal(probe(result.delivered));
  const failures = children.map((child) => child.failure()).filter(Boolean);
  if (failures.length > 0) throw new Error(`webhooks run is void: ${failures.join('; ')}`);
  return { ...result, cpuUsPerDelivery };
}

/** Starts a reference server, measures it, and stops it before the next measurement. */
async function measureServer(
  title: string,
  entry: string,
  extraEnv: Record<string, string>,
  request: Pick<autocannon.Options, 'method' | 'headers' | 'body'>,
): Promise<Measured> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const server = await startNode(title, path(entry), { HTTP_PORT: String(port), ...extraEnv }, url);
  children.push(server);
  const result = await measure(
    title,
    { url, ...request },
    { [title]: server.pid, nats: stackCpu.nats!, bench: process.pid },
  );
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

/** register-payment: each request a new reference (a repeated one is a 409). */
function registerPaymentOptions(
  baseUrl: string,
  key: string,
  run: string,
): Omit<autocannon.Options, 'duration' | 'connections'> {
  let order = 0;
  return {
    url: `${baseUrl}/api/v1/payments`,
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
  };
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
  cpuOf: Record<string, ProcessRef> = {},
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
    helloWorld: Measured;
    natsHop: Measured;
    setQrConfig: Measured;
    registerPayment: Measured;
    statusQuery: Measured;
  },
  lags: Record<string, LagSummary & { loadNon2xx?: number }>,
  webhooks: WebhookSummary & { cpuUsPerDelivery: CpuPerRequest },
): void {
  const perSec = (result: autocannon.Result) => result.requests.average;
  const ratio = (value: number, base: autocannon.Result) =>
    Number((value / perSec(base)).toFixed(3));
  const summary = (result: autocannon.Result) => ({
    reqPerSec: Math.round(perSec(result)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    ratio: ratio(perSec(result), results.helloWorld),
    hopRatio: ratio(perSec(result), results.natsHop),
  });
  const measured = {
    'hello-world': results.helloWorld,
    'nats-hop': results.natsHop,
    'set-qr-config': results.setQrConfig,
    'register-payment': results.registerPayment,
    'status-query': results.statusQuery,
  };
  const rows = Object.fromEntries(
    Object.entries(measured).map(([title, result]) => [title, summary(result)]),
  );
  console.table(rows);
  // Each path's cost where it is paid: a change shows which process it moved work to.
  const cpu = Object.fromEntries(
    Object.entries(measured).map(([title, result]) => [title, withTotal(result.cpuUsPerRequest)]),
  );
  console.log('CPU µs per request, per process (bench = autocannon, the load generator):');
  console.table(cpu);
  console.table(lags);

  const verdict = (met: boolean) => (met ? 'meets' : 'MISSES');
  for (const [title, target] of Object.entries(TARGETS)) {
    const row = rows[title]!;
    const p99 =
      'p99Ms' in target
        ? `, p99 ${row.p99Ms} ms (${verdict(row.p99Ms <= target.p99Ms)} target <= ${target.p99Ms} ms)`
        : '';
    console.log(
      `${title} / nats-hop = ${row.hopRatio} (${verdict(row.hopRatio >= target.hopRatio)} ` +
        `target >= ${target.hopRatio})${p99}`,
    );
  }
  console.log(
    `ratio nats-hop / hello-world = ${rows['nats-hop']!.ratio} (the floor: one route, one NATS request/reply)`,
  );
  for (const [title, summary] of Object.entries(lags)) {
    const met = summary.p99Ms <= TARGET_LAG_P99_MS;
    console.log(
      `${title} p99 = ${summary.p99Ms} ms (${verdict(met)} target <= ${TARGET_LAG_P99_MS} ms)`,
    );
  }
  const webhookRatio = Number((webhooks.deliveriesPerSec / perSec(results.helloWorld)).toFixed(4));
  const { cpuUsPerDelivery, ...delivered } = webhooks;
  const webhookRow = { ...delivered, ratio: webhookRatio };
  console.table({ webhooks: webhookRow });
  console.log(
    'CPU µs per delivery, per process, over the measured burst (bench = publisher and partner):',
  );
  console.table({ webhooks: cpuUsPerDelivery });
  console.log(
    `webhooks = ${webhooks.deliveriesPerSec} deliveries/s, enqueue-to-2xx p50 ${webhooks.p50Ms} ms, ` +
      `p99 ${webhooks.p99Ms} ms, ratio to hello-world = ${webhookRatio} ` +
      `(${verdict(webhookRatio >= TARGET_WEBHOOK_RATIO)} target >= ${TARGET_WEBHOOK_RATIO}; ` +
      `${verdict(webhooks.deliveriesPerSec >= TARGET_DELIVERIES_PER_SEC)} ` +
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
  for (const [title, lag] of Object.entries(lags)) {
    if ((lag.loadNon2xx ?? 0) > 0) console.warn(`WARNING: ${title}: ${lag.loadNon2xx} load errors`);
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
      cpu,
      lags,
      webhooks: { ...webhookRow, cpuUsPerDelivery },
    }),
  );
}

/** The processes' CPU per request and their sum (the bench's own share left out of it). */
function withTotal(cpu: CpuPerRequest): CpuPerRequest {
  const total = Object.entries(cpu)
    .filter(([name]) => name !== 'bench')
    .reduce((sum, [, us]) => sum + us, 0);
  return { ...cpu, total };
}
