import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultRule, SandboxControl } from '@dzpay/cardnet-sandbox/control';
import { crashPoint } from '@dzpay/testkit/crash-point';
import { healWorld } from './heal.ts';
import type { CampaignInfra } from './infra.ts';
import type { CampaignPartner, PartnerWeather } from './partner.ts';
import type { Rng } from './rng.ts';
import type { CampaignSettings } from './settings.ts';
import { SERVICES, type CampaignStack, type ServiceName } from './stack.ts';

/** One fault of the plan, at an offset from the start of the run. */
export type PlannedFault =
  | { at: number; kind: 'kill-service'; target: ServiceName; replica: number; downMs: number }
  | { at: number; kind: 'kill-redis' | 'restart-nats'; downMs: number }
  | { at: number; kind: 'kill-nats-node'; node: number; downMs: number }
  | { at: number; kind: 'flush-redis' | 'terminate-postgres' }
  | { at: number; kind: 'sandbox-weather'; durationMs: number; rules: FaultRule[] }
  | { at: number; kind: 'partner-weather'; durationMs: number; weather: PartnerWeather }
  /** The network refuses dzpay's credentials (errorCode 5), as after a rotation or expiry. */
  | { at: number; kind: 'credentials-refused'; durationMs: number }
  /** Refunds and reversals the network holds past our timeout and quiet time, then makes. */
  | { at: number; kind: 'late-refund'; durationMs: number; rules: FaultRule[] }
  /** SIGSTOP of a service past its settlement lease, then SIGCONT. */
  | { at: number; kind: 'pause-service'; target: ServiceName; replica: number; pauseMs: number }
  /** A service restarted with its wall clock off by `skewMs`, then restarted right. */
  | {
      at: number;
      kind: 'clock-skew';
      target: ServiceName;
      replica: number;
      skewMs: number;
      durationMs: number;
    }
  /** Payments killed right after a commit, before the Idempotency-Key's answer is stored. */
  | { at: number; kind: 'crash-before-answer' }
  /**
   * The Postgres primary's machine lost (sometimes just after its link to the standby was
   * cut, so commits were waiting on it), the standby promoted, the old one rebuilt as standby.
   */
  | { at: number; kind: 'failover-postgres'; replicationStalledMs: number }
  /** A NATS node cut from its peers (its clients still reach it), then healed. */
  | { at: number; kind: 'partition-nats-node'; node: number; durationMs: number }
  /** One replica cut from NATS, Postgres or both while it keeps running, then healed. */
  | {
      at: number;
      kind: 'isolate-service';
      target: ServiceName;
      replica: number;
      from: 'nats' | 'postgres' | 'both';
      durationMs: number;
    };

export type FaultKind = PlannedFault['kind'];

/** NATS nodes, and replicas of each service; `only` keeps the plan to these kinds. */
interface Topology {
  nodes: number;
  replicas: number;
  only?: readonly string[] | null;
}

/** When a fault was in force (end: when what it broke was back). */
export interface FaultWindow {
  kind: FaultKind;
  target?: string;
  start: number;
  end: number;
  /** A failover's time from the loss until the system took writes again. */
  recoveredAfterMs?: number;
  /** Its undo failed: why, and whether the world was healed after it (else the run ended). */
  undoFailed?: { reason: string; healed: boolean };
}

/** What the faults came to: their windows, and what a fault left broken (the run ended). */
export interface FaultsOutcome {
  windows: FaultWindow[];
  /** Null when every fault was undone or healed; else the fault and what is still broken. */
  broken: string | null;
}

/** Every kind a plan may draw (`pnpm campaign --only-faults`). */
export const FAULT_KINDS = [
  'kill-service',
  'kill-redis',
  'restart-nats',
  'kill-nats-node',
  'flush-redis',
  'terminate-postgres',
  'sandbox-weather',
  'partner-weather',
  'credentials-refused',
  'late-refund',
  'pause-service',
  'clock-skew',
  'crash-before-answer',
  'failover-postgres',
  'partition-nats-node',
  'isolate-service',
] as const satisfies readonly FaultKind[];

/** How often each kind comes up, on one NATS server. */
const SINGLE_NODE: Partial<Record<FaultKind, number>> = {
  'kill-service': 4,
  'kill-redis': 1,
  'flush-redis': 1,
  'restart-nats': 1,
  'terminate-postgres': 1,
  'sandbox-weather': 2,
  'partner-weather': 1,
  'credentials-refused': 2,
  'late-refund': 2,
  'pause-service': 2,
  'clock-skew': 1,
  'crash-before-answer': 2,
};

/** Services whose clock matters: windows, leases, lock ends, webhook timestamps. */
const CLOCKED: readonly ServiceName[] = ['payments', 'status', 'gateway', 'webhook-dispatcher'];

/** A late refund lands at most this long after it was asked (under refundHorizonMs). */
const LATE_REFUND_MAX_MS = 20_000;

/**
 * On a cluster, losing one node (of any role: the meta leader, a stream's leader) is the
 * point, and the network and the database misbehave as a cluster's do.
 */
const CLUSTER: Partial<Record<FaultKind, number>> = {
  ...SINGLE_NODE,
  'restart-nats': 0,
  'kill-nats-node': 3,
  'failover-postgres': 3,
  'partition-nats-node': 3,
  'isolate-service': 3,
};

/**
 * The faults of a run, drawn from the seed before anything runs: what, on what, when and
 * for how long. One at a time, a few seconds apart, so a 5xx can be told to belong to one.
 * Kinds come out of a shuffled bag (each as often as its weight), so even a short run
 * meets most of them.
 */
export function planFaults(
  rng: Rng,
  runMs: number,
  topology: Topology = { nodes: 1, replicas: 1 },
  settings: Pick<CampaignSettings, 'cardnetTimeoutMs' | 'refundQuietMs' | 'settleLeaseMs'> = {
    cardnetTimeoutMs: 3_000,
    refundQuietMs: 5_000,
    settleLeaseMs: 3_000,
  },
): PlannedFault[] {
  const plan: PlannedFault[] = [];
  const every = topology.nodes > 1 ? CLUSTER : SINGLE_NODE;
  const kinds = topology.only
    ? Object.fromEntries(Object.entries(every).filter(([kind]) => topology.only!.includes(kind)))
    : every;
  if (Object.values(kinds).every((weight) => !weight)) return [];
  let bag: FaultKind[] = [];
  let at = rng.int(1_000, 3_000);
  while (at < runMs) {
    if (bag.length === 0) bag = shuffled(rng, bagOf(kinds));
    // A cluster run loses a node first, however short it is: that is what it is for.
    if (plan.length === 0 && topology.nodes > 1 && bag.includes('kill-nats-node')) {
      bag.splice(bag.lastIndexOf('kill-nats-node'), 1);
      bag.push('kill-nats-node');
    }
    const fault = plannedFault(rng, bag.pop()!, at, topology, settings);
    plan.push(fault);
    const length =
      'downMs' in fault
        ? fault.downMs
        : 'durationMs' in fault
          ? fault.durationMs
          : 'pauseMs' in fault
            ? fault.pauseMs
            : 0;
    at += length + rng.int(1_500, 6_000);
  }
  return plan;
}

function bagOf(weights: Partial<Record<FaultKind, number>>): FaultKind[] {
  return (Object.entries(weights) as [FaultKind, number][]).flatMap(([kind, n]) =>
    Array<FaultKind>(n).fill(kind),
  );
}

/** Fisher-Yates with the seed's draws. */
function shuffled<T>(rng: Rng, items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function plannedFault(
  rng: Rng,
  kind: FaultKind,
  at: number,
  { nodes: natsNodes, replicas }: Topology,
  settings: Pick<CampaignSettings, 'cardnetTimeoutMs' | 'refundQuietMs' | 'settleLeaseMs'>,
): PlannedFault {
  const replica = () => (replicas > 1 ? rng.int(0, replicas - 1) : 0);
  switch (kind) {
    case 'credentials-refused':
      return { at, kind, durationMs: rng.int(3_000, 10_000) };
    case 'late-refund': {
      // Past our timeout and the quiet time: a refund the network confirms after we gave
      // up on it must still be found and counted once.
      const late = () =>
        rng.int(settings.cardnetTimeoutMs + settings.refundQuietMs + 500, LATE_REFUND_MAX_MS);
      const rules: FaultRule[] = [
        { id: 'late-refund', operation: 'refund', effect: 'late', ms: late(), probability: 0.8 },
        { id: 'late-reverse', operation: 'reverse', effect: 'late', ms: late(), probability: 0.5 },
      ].map((rule) => ({ ...rule, seed: rng.int(1, 1_000_000) }) as FaultRule);
      return { at, kind, durationMs: rng.int(5_000, 12_000), rules };
    }
    case 'pause-service': {
      // Mostly payments, whose settlements hold leases; past the lease, so another
      // process may take the payment over while this one sleeps.
      const target = rng.chance(0.6) ? 'payments' : rng.pick(SERVICES);
      const pauseMs = settings.settleLeaseMs + rng.int(500, 4_000);
      return { at, kind, target, replica: replica(), pauseMs };
    }
    case 'clock-skew': {
      const target = rng.pick(CLOCKED);
      const skewMs = rng.pick([-1, 1]) * rng.int(300, 3_000);
      return { at, kind, target, replica: replica(), skewMs, durationMs: rng.int(5_000, 15_000) };
    }
    case 'crash-before-answer':
      return { at, kind };
    case 'failover-postgres':
      return { at, kind, replicationStalledMs: rng.chance(0.5) ? rng.int(200, 1_500) : 0 };
    case 'partition-nats-node':
      // Past the election timeout sometimes, so the majority elects while the cut node
      // still thinks it leads.
      return { at, kind, node: rng.int(0, natsNodes - 1), durationMs: rng.int(2_000, 15_000) };
    case 'isolate-service': {
      const target = rng.pick(SERVICES);
      const from = rng.pick(['nats', 'postgres', 'both'] as const);
      return { at, kind, target, replica: replica(), from, durationMs: rng.int(2_000, 12_000) };
    }
    case 'kill-nats-node':
      // Down long enough for leaders to move (elections take seconds), sometimes for long.
      return { at, kind, node: rng.int(0, natsNodes - 1), downMs: rng.int(1_000, 15_000) };
    case 'kill-service': {
      const target = rng.pick(SERVICES);
      const downMs = rng.int(200, 5_000);
      // Drawn after the others, so a single-replica run keeps its old schedule.
      const replica = replicas > 1 ? rng.int(0, replicas - 1) : 0;
      return { at, kind, target, replica, downMs };
    }
    case 'kill-redis':
    case 'restart-nats':
      return { at, kind, downMs: rng.int(300, 4_000) };
    case 'flush-redis':
    case 'terminate-postgres':
      return { at, kind };
    case 'sandbox-weather':
      return { at, kind, durationMs: rng.int(3_000, 10_000), rules: sandboxRules(rng) };
    case 'partner-weather':
      return {
        at,
        kind,
        durationMs: rng.int(3_000, 8_000),
        weather: {
          slow: 0.2,
          unavailable: 0.15,
          hang: 0.1,
          webhookFailures: rng.pick([0.3, 0.7, 1]),
        },
      };
  }
}

/** A card network having a bad time: one to three misbehaviours at once. */
function sandboxRules(rng: Rng): FaultRule[] {
  const menu: (() => FaultRule)[] = [
    () => ({
      operation: rng.pick(['register', 'getOrderStatusExtended', 'confirmOrder', 'pay'] as const),
      effect: 'latency',
      ms: rng.int(200, 2_500),
      probability: 0.5,
    }),
    () => ({
      operation: rng.pick(['getOrderStatusExtended', 'confirmOrder', 'reverse', 'refund'] as const),
      effect: 'unavailable',
      probability: 0.4,
    }),
    () => ({
      operation: rng.pick(['confirmOrder', 'refund', 'reverse', 'register', 'pay'] as const),
      effect: 'lost-answer',
      probability: 0.4,
    }),
    () => ({
      operation: 'confirmOrder',
      effect: 'hang',
      ms: rng.int(3_000, 8_000),
      probability: 0.4,
    }),
    () => ({ operation: 'register', effect: 'unavailable', probability: 0.3 }),
    // An answer with an errorCode, the network acting on nothing: access denied or a
    // system error, on any operation.
    () => ({
      operation: rng.pick([
        'register',
        'getOrderStatusExtended',
        'confirmOrder',
        'refund',
        'reverse',
      ] as const),
      effect: 'error-code',
      errorCode: rng.pick(['5', '7']),
      probability: 0.4,
    }),
  ];
  const count = rng.int(1, 3);
  return Array.from({ length: count }, (_, i) => ({
    ...rng.pick(menu)(),
    id: `rule-${i}`,
    seed: rng.int(1, 1_000_000),
  }));
}

/**
 * Runs the plan against the live system until `until`, one fault at a time, and answers
 * the windows they were in force. What a fault broke is brought back before the next; a
 * fault whose undo failed is followed by healing the world (heal.ts), and when that fails
 * too the faults stop and `endRun` is called with what is broken: the run ends on that
 * verdict instead of judging a world nobody meant to make.
 */
export async function runFaults(deps: {
  plan: PlannedFault[];
  startedAt: number;
  until: number;
  stack: CampaignStack;
  infra: CampaignInfra;
  sandbox: SandboxControl;
  partner: CampaignPartner;
  log: (line: string) => void;
  /** Ends the run now (the actors stop starting journeys). */
  endRun: (reason: string) => void;
  /** Heals the world after a failed undo (heal.ts; tests give their own). */
  heal?: typeof healWorld;
}): Promise<FaultsOutcome> {
  const windows: FaultWindow[] = [];
  const heal = deps.heal ?? healWorld;
  for (const fault of deps.plan) {
    const due = deps.startedAt + fault.at;
    if (due >= deps.until) break;
    await sleep(Math.max(0, due - Date.now()));
    const start = Date.now();
    const target =
      fault.kind === 'kill-service' || fault.kind === 'pause-service' || fault.kind === 'clock-skew'
        ? deps.stack.services[fault.target][fault.replica]!.name
        : fault.kind === 'isolate-service'
          ? `${deps.stack.services[fault.target][fault.replica]!.name} from ${fault.from}`
          : fault.kind === 'kill-nats-node' || fault.kind === 'partition-nats-node'
            ? `n${fault.node + 1}`
            : undefined;
    deps.log(`fault ${fault.kind}${target ? ` ${target}` : ''}`);
    let recoveredAfterMs: number | undefined;
    let undoFailed: FaultWindow['undoFailed'];
    try {
      recoveredAfterMs = await inject(fault, deps);
      if (recoveredAfterMs !== undefined)
        deps.log(
          `fault ${fault.kind}: writes again ${recoveredAfterMs} ms after the primary's loss`,
        );
    } catch (error) {
      deps.log(`fault ${fault.kind} could not be undone at once: ${String(error)}`);
      const broken = await heal(deps, error);
      undoFailed = { reason: String(error), healed: broken === null };
      deps.log(broken === null ? `fault ${fault.kind}: world healed` : `not healed: ${broken}`);
      if (broken !== null) {
        const named = `${fault.kind}${target ? ` ${target}` : ''} left the world broken: ${broken}`;
        windows.push({
          kind: fault.kind,
          ...(target ? { target } : {}),
          start,
          end: Date.now(),
          undoFailed,
        });
        deps.endRun(named);
        return { windows, broken: named };
      }
    }
    windows.push({
      kind: fault.kind,
      ...(target ? { target } : {}),
      start,
      end: Date.now(),
      ...(recoveredAfterMs !== undefined ? { recoveredAfterMs } : {}),
      ...(undoFailed ? { undoFailed } : {}),
    });
  }
  return { windows, broken: null };
}

async function inject(
  fault: PlannedFault,
  deps: {
    stack: CampaignStack;
    infra: CampaignInfra;
    sandbox: SandboxControl;
    partner: CampaignPartner;
  },
): Promise<number | undefined> {
  switch (fault.kind) {
    case 'kill-service': {
      const service = deps.stack.services[fault.target][fault.replica]!;
      await service.kill();
      await sleep(fault.downMs);
      await service.start();
      return;
    }
    case 'kill-redis':
      await deps.infra.redis.kill();
      await sleep(fault.downMs);
      await deps.infra.redis.restart();
      return;
    case 'restart-nats':
      await deps.infra.nats.kill(0);
      await sleep(fault.downMs);
      await deps.infra.nats.restart(0);
      return;
    case 'kill-nats-node':
      await deps.infra.nats.kill(fault.node);
      await sleep(fault.downMs);
      await deps.infra.nats.restart(fault.node);
      return;
    case 'flush-redis':
      await deps.infra.redis.flushAll();
      return;
    case 'terminate-postgres':
      await deps.infra.terminatePostgresBackends();
      return;
    case 'sandbox-weather':
      await deps.sandbox.setFaults(fault.rules);
      await sleep(fault.durationMs);
      await deps.sandbox.clearFaults();
      return;
    case 'partner-weather':
      deps.partner.setWeather(fault.weather);
      await sleep(fault.durationMs);
      deps.partner.setWeather(null);
      return;
    case 'credentials-refused':
      await deps.sandbox.setCredentials({ userName: 'dzpay', password: 'rotated-yesterday' });
      await sleep(fault.durationMs);
      await deps.sandbox.restoreCredentials();
      return;
    case 'late-refund':
      await deps.sandbox.setFaults(fault.rules);
      await sleep(fault.durationMs);
      // Calls already held still land later: that is the point.
      await deps.sandbox.clearFaults();
      return;
    case 'pause-service': {
      const service = deps.stack.services[fault.target][fault.replica]!;
      service.pause();
      await sleep(fault.pauseMs);
      service.resume();
      return;
    }
    case 'clock-skew': {
      const service = deps.stack.services[fault.target][fault.replica]!;
      service.setExtraEnv({
        NODE_OPTIONS: `--import=${CLOCK_SKEW}`,
        CAMPAIGN_CLOCK_SKEW_MS: String(fault.skewMs),
      });
      await service.kill();
      await service.start();
      await sleep(fault.durationMs);
      service.setExtraEnv({});
      await service.kill();
      await service.start();
      return;
    }
    case 'crash-before-answer':
      await crashBeforeAnswer(deps);
      return;
    case 'failover-postgres': {
      const failover = deps.infra.failoverPostgres;
      if (!failover) throw new Error('failover-postgres needs the cluster run (a Postgres pair)');
      const timings = await failover({ replicationStalledMs: fault.replicationStalledMs });
      return timings.writableAfterMs;
    }
    case 'partition-nats-node': {
      const partition = deps.infra.nats.partition;
      if (!partition) throw new Error('partition-nats-node needs the cluster run (a lab)');
      await partition(fault.node);
      await sleep(fault.durationMs);
      await deps.infra.heal();
      await deps.infra.nats.settled();
      return;
    }
    case 'isolate-service': {
      const cut = deps.infra.cutClient;
      if (!cut) throw new Error('isolate-service needs the cluster run (a lab)');
      await cut(deps.stack.clientIdOf(fault.target, fault.replica), fault.from);
      await sleep(fault.durationMs);
      await deps.infra.heal();
      return;
    }
  }
}

const CLOCK_SKEW = fileURLToPath(new URL('./clock-skew.ts', import.meta.url));

/**
 * Waits for payments to store an Idempotency-Key's answer (a registration's, a refund's),
 * and kills every payments replica right then: the commit before it stays, the answer
 * is never stored nor sent. The merchant's retry with the same key must answer what was
 * committed. Nothing to crash within a few seconds: nothing happens.
 */
async function crashBeforeAnswer(deps: { infra: CampaignInfra; stack: CampaignStack }) {
  const point = await crashPoint(deps.infra.databaseUrl, {
    table: 'idempotency_keys',
    when: 'old.response is null and new.response is not null',
  });
  try {
    await point.reached(8_000);
  } catch {
    await point.remove();
    return;
  }
  const replicas = deps.stack.services.payments;
  await point.crash(() => Promise.all(replicas.map((r) => r.kill())).then(() => undefined));
  await Promise.all(replicas.map((r) => r.start()));
}
