import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sandboxControl } from '@dzpay/cardnet-sandbox/control';
import { startMailCatcher } from '@dzpay/testkit';
import postgres from 'postgres';
import type { Acknowledged, ActorContext } from './actors/context.ts';
import { runMerchant } from './actors/merchant.ts';
import { cardFormVisits, runPayer } from './actors/payer.ts';
import { runPayouts } from './actors/payouts.ts';
import { runStatusSampler } from './actors/status-sampler.ts';
import {
  balanceAnswers,
  finalStatusAnswers,
  paymentRows,
  payoutRows,
  reconcile,
  refundRows,
} from './collect.ts';
import { planFaults, runFaults, type FaultWindow } from './faults.ts';
import { actorHttp, type HttpLog } from './http.ts';
import { startCampaignInfra } from './infra.ts';
import { runJournal, withinDeadline, type RunJournal, type Stage } from './journal.ts';
import { checkInvariants, type Verdict } from './invariants.ts';
import { noPermissionViolations } from './nats-violations.ts';
import { checkBalance, type PayoutAttempt } from './oracle/balance.ts';
import { checkCoverage, CLUSTER_FLOORS, coverageTable, FLOORS } from './oracle/coverage.ts';
import type { StatusSample } from './oracle/evidence.ts';
import { checkNeverFreeWhileHeld } from './oracle/held.ts';
import { checkOrders } from './oracle/orders.ts';
import { checkReconciliation } from './oracle/reconciliation.ts';
import { checkRefunds } from './oracle/refunds.ts';
import { checkSales } from './oracle/sales.ts';
import { checkFinalStatus } from './oracle/stage.ts';
import { checkStatusSamples } from './oracle/status-samples.ts';
import { checkWebhooks } from './oracle/webhooks.ts';
import { consumersCaughtUp, everyAssetReplicated } from './replication.ts';
import { startCampaignPartner } from './partner.ts';
import { seededRng } from './rng.ts';
import { settle } from './settle.ts';
import { campaignSettings, type CampaignOptions, type CampaignSettings } from './settings.ts';
import { startCampaignStack } from './stack.ts';
import { createMerchants, partnerSecrets } from './world.ts';

/** What a run did and found. */
export interface CampaignResult {
  seed: number;
  settings: CampaignSettings;
  /** NATS servers, and replicas of each service. */
  topology: { natsNodes: number; replicas: number };
  runMs: number;
  verdicts: Verdict[];
  counts: {
    payments: Record<string, number>;
    journeys: Record<string, number>;
    faults: Record<string, number>;
    /** Each Postgres failover's time from the primary's loss until writes committed again. */
    postgresFailoverMs: number[];
    webhooks: { received: number; distinct: number };
    refunds: number;
    receipts: number;
    requests: number;
  };
  /** What the run did that the invariants need, against the coverage floors. */
  counters: Record<string, number>;
  coverage: string[];
  /** Settling took this long after the run, or did not finish (null). */
  settledInMs: number | null;
  logDir: string;
  /** Why the run ended before its checks were all made (its verdicts say what was checked). */
  ended?: string;
  /** Each stage the run reached, with its time (also in `<logDir>/stages.jsonl`). */
  stages: Stage[];
}

/** What a run may take beyond its own minutes and its settle: starting, and the checks. */
const SETUP_BUDGET_MS = 4 * 60_000;
const CHECKS_BUDGET_MS = 6 * 60_000;

/** What the run knows so far, for a result written before its end. */
interface Progress {
  startedAt?: number;
  windows?: FaultWindow[];
  journeys: Record<string, number>;
  counters: Record<string, number>;
  requests: () => number;
  topology: CampaignResult['topology'];
}

const MERCHANTS = 2;

/** What the running campaign must undo, newest first (see stopCampaign). */
const cleanups: (() => Promise<unknown>)[] = [];

/**
 * Stops what a campaign started (services, servers, its database), for a campaign
 * interrupted by a signal: `runCampaign`'s own clean-up never runs then.
 */
export async function stopCampaign(): Promise<void> {
  while (cleanups.length > 0) await cleanups.shift()!().catch(() => undefined);
}

/**
 * One seeded campaign: the whole system as separate processes over infrastructure of its
 * own, many payers and merchants on every path, faults from the seed's plan, then a
 * settle, then the six invariants. It always ends with a verdict: by a hard deadline (its
 * minutes, its settle and budgets for setting up and checking, printed first), when a
 * fault leaves the world broken, or on an error, with what it checked until then.
 */
export async function runCampaign(
  options: CampaignOptions,
  log: (line: string) => void = () => {},
): Promise<CampaignResult> {
  const rng = seededRng(options.seed);
  const settings = campaignSettings(rng.fork('settings'));
  const logDir = join(options.outDir, `seed-${options.seed >>> 0}`);
  // A replayed seed starts with fresh logs, never appended to the last run's.
  await rm(logDir, { recursive: true, force: true });
  await mkdir(logDir, { recursive: true });
  log(
    `seed ${options.seed}: window ${settings.windowMs} ms, sweeper every ${settings.sweepIntervalMs} ms, logs in ${logDir}`,
  );
  const deadlineMs = SETUP_BUDGET_MS + options.runMs + settings.settleTimeoutMs + CHECKS_BUDGET_MS;
  const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;
  log(
    `deadline ${minutes(deadlineMs)}: setting up ${minutes(SETUP_BUDGET_MS)}, running ${minutes(options.runMs)}, settling ${minutes(settings.settleTimeoutMs)}, checking ${minutes(CHECKS_BUDGET_MS)}`,
  );
  const journal = runJournal(logDir, log);
  const progress: Progress = {
    journeys: {},
    counters: {},
    requests: () => 0,
    topology: { natsNodes: options.cluster ? 3 : 1, replicas: options.cluster ? 2 : 1 },
  };
  const run = runToVerdicts(options, { rng, settings, logDir, journal, progress, log });
  try {
    const outcome = await withinDeadline(run, deadlineMs);
    if ('value' in outcome) return outcome.value;
    const ended =
      'deadline' in outcome
        ? `the run did not end within its deadline (${minutes(deadlineMs)}): stopped while ${journal.current}`
        : outcome.error instanceof WorldBroken
          ? outcome.error.message
          : `the run failed while ${journal.current}: ${outcome.error.stack ?? String(outcome.error)}`;
    return await endedEarly(ended, { options, settings, logDir, journal, progress, log });
  } finally {
    // What the run was still doing is stopped with the system it ran on.
    run.catch(() => undefined);
    await stopCampaign();
  }
}

/** The result of a run that ended before its checks were made: what it had, and why. */
async function endedEarly(
  ended: string,
  deps: {
    options: CampaignOptions;
    settings: CampaignSettings;
    logDir: string;
    journal: RunJournal;
    progress: Progress;
    log: (line: string) => void;
  },
): Promise<CampaignResult> {
  const { journal, progress } = deps;
  deps.log(`ended early: ${ended}`);
  journal.add({ name: 'the run reached its verdicts', checked: 1, violations: [ended] });
  const windows = progress.windows ?? [];
  const result: CampaignResult = {
    seed: deps.options.seed,
    settings: deps.settings,
    topology: progress.topology,
    runMs: progress.startedAt ? Date.now() - progress.startedAt : 0,
    verdicts: journal.verdicts,
    counts: {
      payments: {},
      journeys: progress.journeys,
      faults: countBy(windows.map((w) => (w.target ? `${w.kind} ${w.target}` : w.kind))),
      postgresFailoverMs: windows.flatMap((w) =>
        w.recoveredAfterMs !== undefined ? [w.recoveredAfterMs] : [],
      ),
      webhooks: { received: 0, distinct: 0 },
      refunds: 0,
      receipts: 0,
      requests: progress.requests(),
    },
    counters: progress.counters,
    coverage: [],
    settledInMs: null,
    logDir: deps.logDir,
    ended,
    stages: journal.stages,
  };
  await writeFile(join(deps.logDir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

/** The run itself, stage by stage, up to its result (runCampaign bounds and stops it). */
async function runToVerdicts(
  options: CampaignOptions,
  deps: {
    rng: ReturnType<typeof seededRng>;
    settings: CampaignSettings;
    logDir: string;
    journal: RunJournal;
    progress: Progress;
    log: (line: string) => void;
  },
): Promise<CampaignResult> {
  const { rng, settings, logDir, journal, progress, log } = deps;
  journal.stage('setting up');
  const infra = await startCampaignInfra(options.seed, { cluster: options.cluster, logDir });
  const stops = cleanups;
  stops.unshift(() => infra.stop());
  {
    const mail = await startMailCatcher();
    stops.unshift(() => mail.close());
    const secrets = partnerSecrets(options.seed);
    const partner = await startCampaignPartner({
      merchants: MERCHANTS,
      apiSecret: secrets.apiSecret,
      signingSecret: secrets.signingSecret,
      rng: rng.fork('partner'),
      collation: settings.collation,
      accentedNames: settings.collation === 'case-and-unicode-insensitive',
    });
    stops.unshift(() => partner.close());
    const stack = await startCampaignStack({
      infra,
      settings,
      mail,
      logDir,
      replicas: options.cluster ? 2 : 1,
    });
    stops.unshift(() => stack.stop());
    const merchants = await createMerchants({
      count: MERCHANTS,
      cliEnv: stack.cliEnv,
      partner,
      secrets,
      qrPerKind: 2,
    });
    const httpLog: HttpLog = { exchanges: [] };
    progress.requests = () => httpLog.exchanges.length;
    const http = actorHttp(httpLog);
    for (const merchant of merchants) {
      for (const [tokens, singleUse] of [
        [merchant.qr.singleUse, true],
        [merchant.qr.multiUse, false],
      ] as const) {
        for (const token of tokens) {
          await http(`${stack.gatewayUrl}/set-qr-config`, {
            headers: { 'x-api-key': merchant.testKey },
            body: JSON.stringify({ token, amounts: [1500, 2500.5], singleUse }),
          });
        }
      }
    }
    // The first merchant's endpoint also takes payment.refunded, so its bodies are checked.
    await http(`${stack.gatewayUrl}/api/v1/webhooks/settings`, {
      method: 'PUT',
      headers: { 'x-api-key': merchants[0]!.testKey },
      body: JSON.stringify({ events: ['payment.success', 'payment.fail', 'payment.refunded'] }),
    });
    // Setting up is not part of the run.
    httpLog.exchanges.length = 0;

    const acks: Acknowledged = {
      registrations: [],
      refunds: [],
      receipts: [],
      cancels: [],
      keyRefusedOwnReference: [],
    };
    const journeys = progress.journeys;
    const counters = progress.counters;
    const samples: StatusSample[] = [];
    const payoutAttempts: PayoutAttempt[] = [];
    const startedAt = Date.now();
    progress.startedAt = startedAt;
    const until = startedAt + options.runMs;
    const context: ActorContext = {
      http,
      gatewayUrl: stack.gatewayUrl,
      sandboxUrl: stack.sandboxUrl,
      merchants,
      partner,
      settings,
      acks,
      until,
      tally: (journey, outcome) => {
        const key = `${journey} → ${outcome.slice(0, 80)}`;
        journeys[key] = (journeys[key] ?? 0) + 1;
      },
      focus: options.focus,
      samples,
      count: (counter) => {
        counters[counter] = (counters[counter] ?? 0) + 1;
      },
    };
    const sandbox = sandboxControl(stack.sandboxUrl);
    journal.stage('running', { runMs: options.runMs, payers: options.payers });
    log(
      `running for ${options.runMs / 1000} s with ${options.payers} payers and ${MERCHANTS} merchants`,
    );
    const [faults] = await Promise.all([
      options.faults
        ? runFaults({
            plan: planFaults(
              rng.fork('faults'),
              options.runMs,
              {
                nodes: infra.nats.nodes,
                replicas: stack.services.gateway.length,
                only: options.onlyFaults ?? null,
              },
              settings,
            ),
            startedAt,
            until,
            stack,
            infra,
            sandbox,
            partner,
            log,
            endRun: (reason) => {
              // Actors start no journey from now on: the run ends on this verdict.
              context.until = Date.now();
              log(`ending the run: ${reason}`);
            },
          })
        : Promise.resolve({ windows: [] as FaultWindow[], broken: null }),
      ...Array.from({ length: options.payers }, (_, i) =>
        runPayer(context, rng.fork(`payer-${i}`)),
      ),
      ...merchants.map((m) => runMerchant(context, rng.fork(`merchant-${m.index}`), m.index)),
      // An operator pays each merchant out as the run goes (oracle/balance.ts).
      ...merchants.map((m) =>
        runPayouts(context, rng.fork(`payouts-${m.index}`), m.index, {
          env: stack.cliEnv,
          attempts: payoutAttempts,
        }),
      ),
      runStatusSampler(context, rng.fork('status-sampler'), options.focus === 'status' ? 150 : 400),
    ]);
    const runMs = Date.now() - startedAt;
    const { windows } = faults;
    progress.windows = windows;
    journal.stage('bringing every service back', { runMs, faults: windows.length });
    if (faults.broken !== null) {
      journal.add({
        name: 'every fault undone or healed',
        checked: windows.length,
        violations: [faults.broken],
      });
      throw new WorldBroken(faults.broken);
    }

    // Everything back up and quiet before the system is left to settle.
    await sandbox.clearFaults();
    await sandbox.restoreCredentials();
    for (const replica of stack.all()) replica.resume();
    partner.setWeather(null);
    await Promise.all(stack.all().map((replica) => replica.start()));
    const sql = postgres(infra.databaseUrl, {
      max: 2,
      onnotice: () => {},
      // Centimes and counts: bigint, far below 2^53.
      types: { bigint: { to: 20, from: [20], serialize: String, parse: Number } },
    });
    stops.unshift(() => sql.end());
    journal.stage('settling');
    const settledInMs = await settle(sql, settings.settleTimeoutMs, () =>
      consumersCaughtUp({
        natsUrl: infra.nats.url,
        auth: infra.nats.users.admin,
        prefix: stack.natsPrefix,
      }),
    );
    log(settledInMs === null ? 'did not settle in time' : `settled in ${settledInMs} ms`);
    await sleep(1_000);

    journal.stage('checking the invariants', { settledInMs });
    const ledger = await sandbox.ledger();
    const verdicts = await checkInvariants({
      sql,
      ledger,
      webhooks: partner.webhooks,
      exchanges: httpLog.exchanges,
      windows,
      faultGraceMs: settings.faultGraceMs,
      acks,
      mail,
      gatewayUrl: stack.gatewayUrl,
      merchants,
      unexpectedExits: stack
        .all()
        .flatMap((replica) =>
          replica.unexpectedExits.map((exit) => ({ service: replica.name, ...exit })),
        ),
      settleGraceMs: settings.sweepIntervalMs * 3 + 30_000,
    });
    verdicts.push(
      await everyAssetReplicated({
        natsUrl: infra.nats.url,
        auth: infra.nats.users.admin,
        prefix: stack.natsPrefix,
        replicas: infra.nats.replicas,
      }),
      noPermissionViolations(infra.nats.output()),
    );

    journal.add(...verdicts);
    journal.stage('checking with the oracle');
    // The oracle: the same truth read again by code that shares none with dzpay's.
    const payments = await paymentRows(sql);
    const refunds = await refundRows(sql);
    const merchantIds = merchants.map((m) => m.id);
    const indexOf = new Map(merchants.map((m) => [m.id, m.index]));
    const answers = await finalStatusAnswers(stack.gatewayUrl, merchants, payments);
    const report = await reconcile(stack.cliEnv, Date.now() - startedAt + 60_000);
    // (f) No allowance for the projection's lag here: only a payments replica whose clock
    // ran ahead (clock-skew, at most 3 s in the plan) may close a window early.
    const heldVerdict = checkNeverFreeWhileHeld({
      samples,
      cardForms: cardFormVisits(context),
      payments,
      ledger,
      merchantIds,
      mode: 'test',
      cancelled: acks.cancels.map((c) => c.paymentId),
      expiryEarlyMs: (expiresAt) =>
        windows.some(
          (w) =>
            w.kind === 'clock-skew' &&
            w.target?.startsWith('payments') === true &&
            expiresAt >= w.start &&
            expiresAt <= w.end + 3_000,
        )
          ? 3_000
          : 0,
    });
    const webhookVerdicts = checkWebhooks({
      webhooks: partner.webhooks,
      payments,
      refunds,
      merchantIds,
      merchantsWantingRefunds: [0],
    });
    verdicts.push(
      checkFinalStatus({ payments, answers }),
      ...checkStatusSamples({
        samples,
        payments,
        ledger,
        merchantIds,
        mode: 'test',
        // The projection may lag while a fault is in force and until its consumers are
        // back (re-attached within CONSUMER_STALL_MS): there a stale read is allowed more.
        visibilityMs: (at) =>
          windows.some((w) => at >= w.start && at <= w.end + settings.faultGraceMs + 10_000)
            ? 30_000
            : 3_000,
      }),
      heldVerdict,
      ...webhookVerdicts,
      ...checkRefunds({ acks: acks.refunds, refunds, payments, ledger }),
      checkOrders({ payments, ledger, settled: settledInMs !== null }),
      checkSales({
        payments,
        ledger,
        productOf: (merchantId, reference) =>
          partner.productOf(indexOf.get(merchantId) ?? -1, reference),
      }),
      checkReconciliation({ report, ledgerOrders: ledger.length }),
    );
    // The balance: GET /api/v1/balance against the rows, summed by the oracle's own rules.
    const balances = await balanceAnswers(stack.gatewayUrl, merchants, startedAt);
    const balanceVerdicts = checkBalance({
      payments,
      refunds,
      payouts: await payoutRows(sql),
      answers: balances,
      attempts: payoutAttempts,
      inFlightMs: 60_000,
    });
    verdicts.push(...balanceVerdicts);
    counters.balanceAnswers = balances.filter((b) => b.httpStatus === 200).length;
    counters.finalStatusAnswers = answers.length;
    counters.webhooksCompared = webhookVerdicts[0]?.checked ?? 0;
    counters.readsWhileHeld = heldVerdict.checked;
    counters.reconciledOrders = report.counts.ordersSeen;
    const met = (kind: FaultWindow['kind']) => windows.filter((w) => w.kind === kind).length;
    counters.credentialFaults = met('credentials-refused');
    if (options.cluster) {
      counters.postgresFailovers = met('failover-postgres');
      counters.natsPartitions = met('partition-nats-node');
      counters.servicesIsolated = met('isolate-service');
    }
    const floors = options.cluster ? [...FLOORS, ...CLUSTER_FLOORS] : FLOORS;
    verdicts.push(checkCoverage({ counters, runMs, floors }));
    const coverage = coverageTable({ counters, runMs, floors });
    const paymentCounts = await sql<{ key: string; n: number }[]>`
      select channel || ' ' || reference_kind || ' ' || status as key, count(*)::int as n
      from payments.payments group by 1 order by 1`;
    journal.add(...verdicts.slice(journal.verdicts.length));
    journal.stage('done');
    const result: CampaignResult = {
      stages: journal.stages,
      seed: options.seed,
      settings,
      topology: { natsNodes: infra.nats.nodes, replicas: stack.services.gateway.length },
      runMs,
      verdicts,
      settledInMs,
      logDir,
      counters,
      coverage,
      counts: {
        payments: Object.fromEntries(paymentCounts.map((row) => [row.key, row.n])),
        journeys,
        faults: countBy(windows.map((w) => (w.target ? `${w.kind} ${w.target}` : w.kind))),
        postgresFailoverMs: windows.flatMap((w) =>
          w.kind === 'failover-postgres' && w.recoveredAfterMs !== undefined
            ? [w.recoveredAfterMs]
            : [],
        ),
        webhooks: {
          received: partner.webhooks.length,
          distinct: new Set(partner.webhooks.map((w) => w.event.id)).size,
        },
        refunds: acks.refunds.length,
        receipts: acks.receipts.length,
        requests: httpLog.exchanges.length,
      },
    };
    await writeFile(join(logDir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  }
}

/** A fault left the world broken: the run ends on that (its verdict is in the journal). */
class WorldBroken extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'WorldBroken';
  }
}

function countBy(keys: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}
