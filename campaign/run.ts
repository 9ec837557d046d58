import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sandboxControl } from '@dzpay/cardnet-sandbox/control';
import { startMailCatcher } from '@dzpay/testkit';
import postgres from 'postgres';
import type { Acknowledged, ActorContext } from './actors/context.ts';
import { runMerchant } from './actors/merchant.ts';
import { runPayer } from './actors/payer.ts';
import { planFaults, runFaults, type FaultWindow } from './faults.ts';
import { actorHttp, type HttpLog } from './http.ts';
import { startCampaignInfra } from './infra.ts';
import { checkInvariants, type Verdict } from './invariants.ts';
import { noPermissionViolations } from './nats-violations.ts';
import { everyAssetReplicated } from './replication.ts';
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
    webhooks: { received: number; distinct: number };
    refunds: number;
    receipts: number;
    requests: number;
  };
  /** Settling took this long after the run, or did not finish (null). */
  settledInMs: number | null;
  logDir: string;
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
 * settle, then the six invariants.
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

  const infra = await startCampaignInfra(options.seed, { cluster: options.cluster });
  const stops = cleanups;
  stops.unshift(() => infra.stop());
  try {
    const mail = await startMailCatcher();
    stops.unshift(() => mail.close());
    const secrets = partnerSecrets(options.seed);
    const partner = await startCampaignPartner({
      merchants: MERCHANTS,
      apiSecret: secrets.apiSecret,
      signingSecret: secrets.signingSecret,
      rng: rng.fork('partner'),
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
    // Setting up is not part of the run.
    httpLog.exchanges.length = 0;

    const acks: Acknowledged = { registrations: [], refunds: [], receipts: [], cancels: [] };
    const journeys: Record<string, number> = {};
    const startedAt = Date.now();
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
    };
    const sandbox = sandboxControl(stack.sandboxUrl);
    log(
      `running for ${options.runMs / 1000} s with ${options.payers} payers and ${MERCHANTS} merchants`,
    );
    const [windows] = await Promise.all([
      options.faults
        ? runFaults({
            plan: planFaults(rng.fork('faults'), options.runMs, {
              nodes: infra.nats.nodes,
              replicas: stack.services.gateway.length,
            }),
            startedAt,
            until,
            stack,
            infra,
            sandbox,
            partner,
            log,
          })
        : Promise.resolve([] as FaultWindow[]),
      ...Array.from({ length: options.payers }, (_, i) =>
        runPayer(context, rng.fork(`payer-${i}`)),
      ),
      ...merchants.map((m) => runMerchant(context, rng.fork(`merchant-${m.index}`), m.index)),
    ]);
    const runMs = Date.now() - startedAt;

    // Everything back up and quiet before the system is left to settle.
    await sandbox.clearFaults();
    partner.setWeather(null);
    await Promise.all(stack.all().map((replica) => replica.start()));
    const sql = postgres(infra.databaseUrl, {
      max: 2,
      onnotice: () => {},
      // Centimes and counts: bigint, far below 2^53.
      types: { bigint: { to: 20, from: [20], serialize: String, parse: Number } },
    });
    stops.unshift(() => sql.end());
    log('settling');
    const settledInMs = await settle(sql, settings.settleTimeoutMs);
    log(settledInMs === null ? 'did not settle in time' : `settled in ${settledInMs} ms`);
    await sleep(1_000);

    const verdicts = await checkInvariants({
      sql,
      ledger: await sandbox.ledger(),
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
    const paymentCounts = await sql<{ key: string; n: number }[]>`
      select channel || ' ' || reference_kind || ' ' || status as key, count(*)::int as n
      from payments.payments group by 1 order by 1`;
    const result: CampaignResult = {
      seed: options.seed,
      settings,
      topology: { natsNodes: infra.nats.nodes, replicas: stack.services.gateway.length },
      runMs,
      verdicts,
      settledInMs,
      logDir,
      counts: {
        payments: Object.fromEntries(paymentCounts.map((row) => [row.key, row.n])),
        journeys,
        faults: countBy(windows.map((w) => (w.target ? `${w.kind} ${w.target}` : w.kind))),
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
  } finally {
    await stopCampaign();
  }
}

function countBy(keys: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}
