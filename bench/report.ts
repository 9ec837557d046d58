import { cpus, loadavg } from 'node:os';
import type autocannon from 'autocannon';
import { withTotal, type CpuPerRequest } from './cpu.ts';
import { FAILOVER_PATHS, type FailoverResult, type KillSample } from './failover.ts';
import type { Measured } from './measure.ts';
import type { RedisDownRow } from './redis-down.ts';
import { settings } from './settings.ts';
import type { LagSummary } from './status.ts';
import type { WebhookSummary } from './webhooks.ts';

// What `pnpm bench` prints: a table per group of rows, the CPU each process spent per
// request, each target met or missed, and the same numbers as one JSON line to keep.

/**
 * What each path must reach: ratios to the nats-hop floor of the same run (so a slower
 * machine does not fail them), p99s in ms.
 */
const TARGETS = {
  'status-query': { hopRatio: 0.6, p99Ms: 10 },
  'set-qr-config': { hopRatio: 0.45 },
  'register-payment': { hopRatio: 0.12, p99Ms: 30 },
} as const satisfies Record<string, { hopRatio: number; p99Ms?: number }>;
const TARGET_LAG_P99_MS = 20;
const TARGET_WEBHOOK_RATIO = 0.035;
const TARGET_DELIVERIES_PER_SEC = 1_000;

export interface PathResults {
  helloWorld: Measured;
  natsHop: Measured;
  setQrConfig: Measured;
  registerPayment: Measured;
  statusQuery: Measured;
  /** Released references: never remembered, each read checked with payments' rows. */
  statusQueryFree: Measured;
}

const perSec = (result: autocannon.Result) => result.requests.average;

/** A row's rate and latencies (its slowest request too, with `max`). */
function rateRow(result: autocannon.Result, options: { max?: boolean } = {}) {
  return {
    reqPerSec: Math.round(perSec(result)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ...(options.max ? { maxMs: result.latency.max } : {}),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function warnOfErrors(rows: Record<string, { non2xx: number; errors: number }>): void {
  for (const [title, row] of Object.entries(rows)) {
    if (row.non2xx > 0 || row.errors > 0) {
      console.warn(`WARNING: ${title} had ${row.non2xx} non-2xx answers, ${row.errors} errors`);
    }
  }
}

/**
 * The servers share the machine with autocannon and with whatever else runs: the core
 * count and load average say how much to trust the numbers.
 */
function machine() {
  return { cores: cpus().length, load1: Number(loadavg()[0]!.toFixed(2)) };
}

const verdict = (met: boolean) => (met ? 'meets' : 'MISSES');

/** The paths, the lags and the webhooks, each against its target. */
export function reportPaths(
  results: PathResults,
  lags: Record<string, LagSummary & { loadNon2xx?: number }>,
  webhooks: WebhookSummary & { cpuUsPerDelivery: CpuPerRequest },
): void {
  const ratio = (value: number, base: autocannon.Result) =>
    Number((value / perSec(base)).toFixed(3));
  const summary = (result: autocannon.Result) => ({
    ...rateRow(result),
    ratio: ratio(perSec(result), results.helloWorld),
    hopRatio: ratio(perSec(result), results.natsHop),
  });
  const measured = {
    'hello-world': results.helloWorld,
    'nats-hop': results.natsHop,
    'set-qr-config': results.setQrConfig,
    'register-payment': results.registerPayment,
    'status-query': results.statusQuery,
    'status-query-free': results.statusQueryFree,
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
  for (const [title, lag] of Object.entries(lags)) {
    const met = lag.p99Ms <= TARGET_LAG_P99_MS;
    console.log(
      `${title} p99 = ${lag.p99Ms} ms (${verdict(met)} target <= ${TARGET_LAG_P99_MS} ms)`,
    );
  }
  const webhookRow = reportWebhooks(webhooks, perSec(results.helloWorld));
  warnOfErrors(rows);
  for (const [title, lag] of Object.entries(lags)) {
    if ((lag.loadNon2xx ?? 0) > 0) console.warn(`WARNING: ${title}: ${lag.loadNon2xx} load errors`);
  }
  const { seconds, connections } = settings;
  console.log(
    JSON.stringify({
      seconds,
      connections,
      ...machine(),
      ...rows,
      cpu,
      lags,
      webhooks: webhookRow,
    }),
  );
}

/** The webhooks row and its verdicts; answers the row as the JSON line keeps it. */
function reportWebhooks(
  webhooks: WebhookSummary & { cpuUsPerDelivery: CpuPerRequest },
  helloWorldPerSec: number,
) {
  const webhookRatio = Number((webhooks.deliveriesPerSec / helloWorldPerSec).toFixed(4));
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
  return { ...webhookRow, cpuUsPerDelivery };
}

/**
 * The redis-down rows: each scenario with the gateway's Redis up and down, the ratio
 * of their rates, and the CPU per request of each process on the path.
 */
export function reportRedisDown(rows: Record<string, RedisDownRow>): void {
  const table: Record<string, ReturnType<typeof rateRow>> = {};
  const cpu: Record<string, Record<string, number>> = {};
  for (const [name, row] of Object.entries(rows)) {
    table[`${name} (redis up)`] = rateRow(row.up, { max: true });
    table[`${name} (redis down)`] = rateRow(row.down, { max: true });
    cpu[`${name} (redis up)`] = row.up.cpuUsPerRequest;
    cpu[`${name} (redis down)`] = row.down.cpuUsPerRequest;
  }
  console.table(table);
  console.log('CPU µs per request, per process:');
  console.table(cpu);
  for (const [name, row] of Object.entries(rows)) {
    console.log(`ratio ${name} redis down / redis up = ${row.ratio}`);
  }
  warnOfErrors(table);
  const ratios = Object.fromEntries(Object.entries(rows).map(([name, row]) => [name, row.ratio]));
  const { seconds, connections } = settings;
  console.log(
    JSON.stringify({ redisDown: { seconds, connections, ...machine(), ...table, cpu, ratios } }),
  );
}

/** The payments-list rows: req/s, latencies and the ratio to hello-world of the same run. */
export function reportPaymentsList(
  helloWorld: autocannon.Result,
  rows: Record<string, autocannon.Result>,
): void {
  const table = Object.fromEntries(
    Object.entries(rows).map(([title, result]) => [
      title,
      {
        ...rateRow(result),
        ratio: Number((perSec(result) / perSec(helloWorld)).toFixed(4)),
      },
    ]),
  );
  console.table({ 'hello-world': { reqPerSec: Math.round(perSec(helloWorld)) }, ...table });
  warnOfErrors(table);
  const { seconds, connections } = settings;
  console.log(
    JSON.stringify({
      paymentsList: {
        seconds,
        connections,
        ...machine(),
        helloWorld: Math.round(perSec(helloWorld)),
        ...table,
      },
    }),
  );
}

/** How soon each path must deliver again after a NATS leader's loss (p99). */
const TARGET_RESUME_P99_MS = 3_000;

/** Nearest-rank p50, p99 and max in whole ms; a null (never happened) counts as the slowest. */
function spread(values: readonly (number | null)[]) {
  const sorted = values.map((v) => v ?? Infinity).sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
  const ms = (v: number | undefined) =>
    v === undefined ? null : Number.isFinite(v) ? Math.round(v) : 'never';
  return { p50: ms(rank(0.5)), p99: ms(rank(0.99)), max: ms(sorted.at(-1)) };
}

/**
 * The failover scenario: every stop in order, then per signal and path the resume time,
 * the election within it and dzpay's own share (resume − election), each p50/p99/max,
 * and each path's resume p99 against the target.
 */
export function reportFailover(result: FailoverResult): void {
  console.log('failover: every stop, in order (ms from the signal)');
  console.table(result.kills);
  const summary: Record<string, Record<string, unknown>> = {};
  const signals = [...new Set(result.kills.map((kill) => kill.signal))];
  for (const signal of signals) {
    const rows: Record<string, Record<string, number | string | null>> = {};
    const ofSignal = result.kills.filter((k) => k.signal === signal);
    for (const path of FAILOVER_PATHS) {
      const kills = ofSignal.filter((k) => k.path === path);
      const of = (field: keyof Pick<KillSample, 'resumeMs' | 'electionMs' | 'overheadMs'>) =>
        spread(kills.map((kill) => kill[field]));
      const [resume, election, overhead] = [of('resumeMs'), of('electionMs'), of('overheadMs')];
      rows[path] = {
        kills: kills.length,
        'resume p50': resume.p50,
        'resume p99': resume.p99,
        'resume max': resume.max,
        'election p50': election.p50,
        'election p99': election.p99,
        'election max': election.max,
        'dzpay p50': overhead.p50,
        'dzpay p99': overhead.p99,
        'dzpay max': overhead.max,
        'failed registers': kills.reduce((sum, kill) => sum + kill.failedRegisters, 0),
      };
    }
    const how = signal === 'SIGKILL' ? "the leader's loss" : "the leader's graceful shutdown";
    console.log(`failover after ${signal} (${how}), ms; dzpay = resume − election:`);
    console.table(rows);
    for (const [path, row] of Object.entries(rows)) {
      const p99 = row['resume p99'];
      const met = typeof p99 === 'number' && p99 <= TARGET_RESUME_P99_MS;
      console.log(
        `${path} after ${signal}: resume p99 ${p99} ms (${verdict(met)} target <= ` +
          `${TARGET_RESUME_P99_MS} ms), of which the election p99 ${row['election p99']} ms, ` +
          `dzpay's own p99 ${row['dzpay p99']} ms`,
      );
    }
    summary[signal] = rows;
  }
  const steady = Object.fromEntries(
    Object.entries(result.steady).map(([path, latencies]) => [
      path,
      { samples: latencies.length, ...spread(latencies) },
    ]),
  );
  console.log('each path with every node up, ms from the answer or PubAck to delivery:');
  console.table(steady);
  console.log(
    'After a SIGKILL no path can resume before its stream or consumer has a new leader, ' +
      "and nats-server's followers wait 4-9 s (compiled in) before they campaign: dzpay's " +
      'own share is what it adds to that. The election is seen by asking every 50 ms, so ' +
      'that share may read a little below 0. Percentiles are nearest-rank: with fewer ' +
      'than 100 stops, p99 is the slowest.',
  );
  console.log(JSON.stringify({ failover: { ...machine(), ...summary, steady } }));
}
