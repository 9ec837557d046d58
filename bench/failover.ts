import { setTimeout as sleep } from 'node:timers/promises';
import {
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { DurableConsumers, Streams, type MerchantScope } from '@dzpay/contracts';
import { streamName, type NatsConnection, type Sql } from '@dzpay/platform';
import type { LocalNatsCluster } from '@dzpay/testkit/nats-cluster';
import {
  RESUME_LIMIT_MS,
  deliveredSince,
  publishingProbe,
  statusProbe,
  webhooksProbe,
  type Probe,
} from './failover-probes.ts';

// The failover scenario of `pnpm bench` (BENCH_ONLY=failover): on a 3-node JetStream
// cluster, the node leading what a path needs is stopped (SIGKILL: its loss; SIGTERM: a
// graceful shutdown) while probes send one event every PROBE_GAP_MS on each path; per
// stop, how long until the path delivers again, how much of that was the asset's leader
// election (nats-server campaigns 4–9 s after a leader vanishes, compiled in), and what
// dzpay adds. See docs/benchmarks.md.

export const FAILOVER_PATHS = ['publishing', 'status', 'webhooks'] as const;
export type FailoverPath = (typeof FAILOVER_PATHS)[number];
export type StopSignal = 'SIGKILL' | 'SIGTERM';

/** One leader stopped, and when its path and its asset came back. */
export interface KillSample {
  signal: StopSignal;
  path: FailoverPath;
  node: string;
  /** Every asset of the run the node led when stopped (the prefix left out). */
  led: string;
  /** Signal → the path delivers an event sent after it; null: not within RESUME_LIMIT_MS. */
  resumeMs: number | null;
  /** Signal → the path's stream or consumer reports another leader; null: not seen. */
  electionMs: number | null;
  /** resume − election: what dzpay adds to the election. */
  overheadMs: number | null;
  /**
   * Payment registrations (the publishing probe's) answered non-2xx or not at all, from
   * the signal until the node was back: what payers saw, whichever path was measured.
   * (The other probes' failed sends are the harness's own publishes, refused while
   * PAYMENTS has no leader, and not counted.)
   */
  failedRegisters: number;
}

export interface FailoverResult {
  kills: KillSample[];
  /** Each path's latencies (ms) while no node was down: what "delivering again" returns to. */
  steady: Record<FailoverPath, number[]>;
}

export interface FailoverDeps {
  cluster: LocalNatsCluster;
  prefix: string;
  scope: MerchantScope;
  /** The public endpoint and the merchant's key: the publishing probe registers payments. */
  gateway: { baseUrl: string; key: string };
  /** payments' schema: its outbox says when the relay had an event acknowledged. */
  payments: Sql;
  /** The partner the dispatcher delivers to: when it answered each event id. */
  partner: { answered: ReadonlyMap<string, number> };
  run: string;
  kills: number;
  signals: readonly StopSignal[];
}

const LEADER_POLL_MS = 50;
/** Between rounds, once every path delivers again: the steady samples come from here. */
const PAUSE_MS = 2_000;
/**
 * The durable consumers of the status projection and the dispatcher on PAYMENTS: the
 * services' defaults (STATUS_CONSUMER, WEBHOOK_CONSUMER), which the bench leaves alone.
 */
const CONSUMER_OF: Record<FailoverPath, string | null> = {
  publishing: null,
  status: DurableConsumers.statusPayments.durable,
  webhooks: DurableConsumers.dispatcherPayments.durable,
};

/** The rounds in order: per signal, the paths in turn until each had `kills`. */
export function failoverRounds(
  kills: number,
  signals: readonly StopSignal[],
): { signal: StopSignal; path: FailoverPath }[] {
  const perSignal = kills * FAILOVER_PATHS.length;
  return signals.flatMap((signal) =>
    Array.from({ length: perSignal }, (_, i) => ({
      signal,
      path: FAILOVER_PATHS[i % FAILOVER_PATHS.length]!,
    })),
  );
}

export async function measureFailover(deps: FailoverDeps): Promise<FailoverResult> {
  const harness = await harnessOf(deps.cluster);
  const probes: Probes = {
    publishing: publishingProbe(deps),
    status: statusProbe(deps, harness),
    webhooks: webhooksProbe(deps, harness),
  };
  const windows: SteadyWindow[] = [];
  const kills: KillSample[] = [];
  let previous = -1;
  try {
    for (const { signal, path } of failoverRounds(deps.kills, deps.signals)) {
      const round = await retried(`${signal} ${path}`, deps.cluster, () =>
        stopLeader(deps, harness, probes, { signal, path, previous }),
      );
      kills.push(round.sample);
      windows.push(round.steady);
      previous = round.victim;
      const { node, led, resumeMs, electionMs, overheadMs } = round.sample;
      const nth = kills.filter((k) => k.signal === signal && k.path === path).length;
      const failed = round.sample.failedRegisters;
      console.log(
        `failover ${signal} ${path} #${nth} at ${round.wallClock}: ${node} (led ${led}) ` +
          `resumed ${resumeMs ?? 'never'} ms, elected ${electionMs ?? '?'} ms, ` +
          `dzpay +${overheadMs ?? '?'} ms${failed ? `, ${failed} registrations failed` : ''}`,
      );
    }
  } finally {
    await Promise.all(FAILOVER_PATHS.map((path) => probes[path].stop()));
    await harness.close();
  }
  const steady = (probe: Probe) =>
    probe.sent.flatMap((sent) => {
      const window = windows.find((w) => sent.sentAt >= w.from && sent.sentAt < w.to);
      if (!window) return [];
      // Not delivered before the stop: at least this long (a lower bound).
      const at = Math.min(sent.deliveredAt ?? window.stoppedAt, window.stoppedAt);
      return [Math.max(0, at - (sent.ackedAt ?? sent.sentAt))];
    });
  return {
    kills,
    steady: {
      publishing: steady(probes.publishing),
      status: steady(probes.status),
      webhooks: steady(probes.webhooks),
    },
  };
}

type Probes = Record<FailoverPath, Probe>;

/**
 * A round that failed (a leader missing after a restart, a listing timed out) is void:
 * every node is brought back and it is run again, three times at most.
 */
async function retried<T>(name: string, cluster: LocalNatsCluster, round: () => Promise<T>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await round();
    } catch (error) {
      if (attempt === 3) throw error;
      console.warn(`failover: ${name} round void, run again: ${String(error)}`);
      for (const [index, node] of cluster.nodes.entries()) {
        if (!node.running) await cluster.restart(index);
      }
      await cluster.waitForLeaders(60_000);
    }
  }
}

/** Events sent from `from` to `to`, with every node up, each delivered by `stoppedAt` or not. */
interface SteadyWindow {
  from: number;
  to: number;
  stoppedAt: number;
}

/**
 * One round: the node leading the path's asset is found, every path is seen delivering,
 * then the node is stopped; the round ends once the path delivered again and the node,
 * restarted, has caught up.
 */
async function stopLeader(
  deps: FailoverDeps,
  harness: Harness,
  probes: Probes,
  round: { signal: StopSignal; path: FailoverPath; previous: number },
) {
  const { cluster } = deps;
  const { signal, path } = round;
  const asset = assetOf(deps.prefix, path);
  // Asked through a node other than the one just restarted (it may still be reconnecting).
  harness.useNodeOtherThan(round.previous, -1);
  let victim = await harness.leaderIndex(asset);
  // Publishing's own stream must keep its leader while a consumer's path is measured:
  // the harness's publishes (and every other path) would stall with it.
  if (asset.consumer) victim = await harness.moveConsumerOff(asset, victim);
  const node = cluster.nodes[victim]!.name;
  const leaders = await leadersOf(harness.manager(), deps.prefix).catch(() => null);
  const led = leaders ? ledBy(leaders, node) : ['(not listed)'];
  // Probes talk through a node that stays up, and not one just restarted.
  harness.useNodeOtherThan(victim, round.previous);
  const settledFrom = performance.now();
  const settled = await Promise.all(
    FAILOVER_PATHS.map((p) => deliveredSince(probes[p], settledFrom)),
  );
  FAILOVER_PATHS.forEach((p, i) => {
    if (settled[i] === null) console.warn(`failover: ${p} delivers nothing before the stop`);
  });
  const steadyFrom = performance.now();
  await sleep(PAUSE_MS);

  const failedBefore = probes.publishing.failedSends;
  const wallClock = new Date().toISOString().slice(11, 23);
  const stoppedAt = performance.now();
  const stopping = cluster.nodes[victim]!.kill(signal);
  probes[path].mark(stoppedAt);
  const [electedAt, resumedAt] = await Promise.all([
    harness.newLeaderAt(asset, node, stoppedAt),
    deliveredSince(probes[path], stoppedAt),
  ]);
  await stopping;
  await cluster.restart(victim);
  await cluster.waitForLeaders(60_000);
  const since = (at: number | null) => (at === null ? null : Math.round(at - stoppedAt));
  const sample: KillSample = {
    signal,
    path,
    // n1, n2, n3: the cluster's name before it says nothing.
    node: node.replace(/^.*-/, ''),
    led: led.join(' ') || 'nothing else',
    resumeMs: since(resumedAt),
    electionMs: since(electedAt),
    overheadMs:
      resumedAt === null || electedAt === null ? null : Math.round(resumedAt - electedAt) || 0,
    failedRegisters: probes.publishing.failedSends - failedBefore,
  };
  // The last second before the stop is left out: those events may still be in flight.
  const steady = { from: steadyFrom, to: stoppedAt - 1_000, stoppedAt };
  return { sample, steady, victim, wallClock };
}

// ---------------------------------------------------------------- the cluster, seen from outside

interface Asset {
  stream: string;
  consumer: string | null;
}

function assetOf(prefix: string, path: FailoverPath): Asset {
  return { stream: streamName(prefix, Streams.payments.name), consumer: CONSUMER_OF[path] };
}

/** Every stream and consumer of the run, by name without the prefix, with its leader. */
async function leadersOf(jsm: JetStreamManager, prefix: string): Promise<Map<string, string>> {
  const leaders = new Map<string, string>();
  const ours = streamName(prefix, '');
  for await (const stream of jsm.streams.list()) {
    const name = stream.config.name;
    if (!name.includes(ours)) continue;
    const short = name.replace(ours, '');
    leaders.set(short, stream.cluster?.leader ?? '');
    for await (const consumer of jsm.consumers.list(name)) {
      // Durable ones only: the KV watchers' ordered consumers come and go with each watch.
      if (!consumer.config.durable_name) continue;
      leaders.set(`${short}/${consumer.name}`, consumer.cluster?.leader ?? '');
    }
  }
  return leaders;
}

/** What `node` leads. */
function ledBy(leaders: Map<string, string>, node: string): string[] {
  return [...leaders].flatMap(([name, leader]) => (leader === node ? [name] : [])).sort();
}

/**
 * The harness's own connections, one pinned to each node (no reconnecting elsewhere), so
 * a probe or a leader poll never waits on the node being stopped, nor on its own
 * reconnection: the times measured are dzpay's.
 */
async function harnessOf(cluster: LocalNatsCluster) {
  const conns = await Promise.all(
    cluster.nodes.map((node) =>
      connect({
        servers: node.url,
        name: `bench-failover-${node.name}`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        ignoreClusterUpdates: true,
        noAsyncTraces: true,
      }),
    ),
  );
  // Short timeouts: an answer that does not come is asked again, not waited for.
  const managers = await Promise.all(conns.map((nc) => jetstreamManager(nc, { timeout: 1_000 })));
  const clients = conns.map((nc) => jetstream(nc, { timeout: 2_000 }));
  let current = 0;
  const indexOf = (name: string | undefined) => cluster.nodes.findIndex((n) => n.name === name);
  const leaderOf = async (jsm: JetStreamManager, asset: Asset) =>
    asset.consumer
      ? (await jsm.consumers.info(asset.stream, asset.consumer)).cluster?.leader
      : (await jsm.streams.info(asset.stream)).cluster?.leader;

  const harness = {
    nc: (): NatsConnection => conns[current]!,
    js: (): JetStreamClient => clients[current]!,
    manager: (): JetStreamManager => managers[current]!,
    useNodeOtherThan(victim: number, previous: number) {
      const spare = cluster.nodes.map((_, i) => i).filter((i) => i !== victim);
      current = spare.find((i) => i !== previous) ?? spare[0]!;
    },
    /** The node leading the asset, once it has one: a restarted node may cause an election. */
    async leaderIndex(asset: Asset): Promise<number> {
      const deadline = performance.now() + RESUME_LIMIT_MS;
      for (;;) {
        const leader = await leaderOf(managers[current]!, asset).catch(() => undefined);
        if (indexOf(leader) >= 0) return indexOf(leader);
        if (performance.now() > deadline) {
          throw new Error(`${asset.stream}/${asset.consumer ?? ''} has no leader`);
        }
        await sleep(250);
      }
    },
    /**
     * Steps the consumer's leader down until another node than the stream's leader leads
     * it (at most a few times); its new leader's index.
     */
    async moveConsumerOff(asset: Asset, from: number): Promise<number> {
      const streamLeader = await harness.leaderIndex({ ...asset, consumer: null });
      let leader = from;
      for (let attempt = 0; attempt < 5 && leader === streamLeader; attempt++) {
        await harness
          .nc()
          .request(`$JS.API.CONSUMER.LEADER.STEPDOWN.${asset.stream}.${asset.consumer}`, '', {
            timeout: 2_000,
          })
          .catch(() => undefined);
        const elected = await harness.newLeaderAt(asset, cluster.nodes[leader]!.name, 0);
        if (elected === null) break;
        leader = await harness.leaderIndex(asset);
      }
      const moved = leader !== from ? `, moved from ${cluster.nodes[from]!.name}` : '';
      if (leader === streamLeader) {
        console.warn(`failover: ${asset.consumer} is led by the PAYMENTS leader, stopped anyway`);
      } else if (moved) console.log(`failover: ${asset.consumer} stepped down${moved}`);
      return leader;
    },
    /**
     * When the asset first answered with a leader other than `old` (performance.now()),
     * null if not within RESUME_LIMIT_MS of `since`. Asked every LEADER_POLL_MS without
     * waiting for earlier answers: a leaderless asset answers nothing until timeout.
     */
    newLeaderAt(asset: Asset, old: string, since: number): Promise<number | null> {
      return new Promise((resolve) => {
        let settled = false;
        const jsm = managers[current]!;
        const deadline = performance.now() + RESUME_LIMIT_MS;
        const ask = () => {
          if (settled) return;
          if (performance.now() > deadline) {
            settled = true;
            resolve(null);
            return;
          }
          void leaderOf(jsm, asset).then(
            (leader) => {
              if (settled || !leader || leader === old) return;
              settled = true;
              resolve(Math.max(since, performance.now()));
            },
            () => undefined,
          );
          setTimeout(ask, LEADER_POLL_MS);
        };
        ask();
      });
    },
    async close() {
      await Promise.all(conns.map((nc) => nc.close()));
    },
  };
  return harness;
}

export type Harness = Awaited<ReturnType<typeof harnessOf>>;
