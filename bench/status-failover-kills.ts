import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { LocalNatsCluster } from '@dzpay/testkit/nats-cluster';

// The status-failover scenario's kills (bench/status-failover.ts): a status replica
// SIGKILLed and started again, or the NATS node leading the PAYMENTS stream SIGKILLed and
// started again once another node leads it. Each resolves once what it killed is back.

/** What one kill did, in ms from the signal. */
export interface KillRecord {
  kind: 'status-replica' | 'payments-leader';
  nth: number;
  /** The status replica (A or B) or the NATS node (n1, n2, n3) killed. */
  target: string;
  /** performance.now() of the signal. */
  at: number;
  /** The signal → another node reported leading PAYMENTS (leader kills only). */
  electedMs: number | null;
  /** The signal → the replica or node was started again and ready. */
  restartedMs: number;
  /** The signal → everything current again (cluster: every stream led and caught up). */
  recoveredMs: number;
}

/** A process killed by pid: resolves once it is gone (reaped), at most `timeoutMs` later. */
async function gone(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(20);
  }
  throw new Error(`process ${pid} still there ${timeoutMs} ms after SIGKILL`);
}

/**
 * SIGKILL of the replica's process; `restart` starts a new one `restartAfterMs` after the
 * signal and resolves with its pid once it is ready.
 */
export async function killStatusReplica(
  pid: number,
  restart: () => Promise<number>,
  restartAfterMs: number,
): Promise<{ at: number; pid: number; restartedMs: number }> {
  const at = performance.now();
  process.kill(pid, 'SIGKILL');
  await gone(pid);
  await sleep(Math.max(0, at + restartAfterMs - performance.now()));
  const started = await restart();
  return { at, pid: started, restartedMs: Math.round(performance.now() - at) };
}

/**
 * Eyes on the cluster: a connection pinned to each node (no reconnecting elsewhere), so
 * a question about leaders is asked of a node that is up, never through the killed one.
 */
export async function clusterEyes(cluster: LocalNatsCluster) {
  const conns: NatsConnection[] = await Promise.all(
    cluster.nodes.map((node) =>
      connect({
        servers: node.url,
        name: `bench-status-failover-${node.name}`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        ignoreClusterUpdates: true,
      }),
    ),
  );
  const managers: JetStreamManager[] = await Promise.all(
    conns.map((nc) => jetstreamManager(nc, { timeout: 1_000 })),
  );
  const indexOf = (name: string | undefined) => cluster.nodes.findIndex((n) => n.name === name);
  /** The stream's leader as node `via` sees it; -1 when it has none or does not answer. */
  const leaderVia = async (stream: string, via: number): Promise<number> => {
    const info = await managers[via]!.streams.info(stream).catch(() => null);
    return indexOf(info?.cluster?.leader);
  };
  return {
    /** The node leading `stream`, asked of every node in turn until one says (30 s at most). */
    async leaderOf(stream: string): Promise<number> {
      const deadline = performance.now() + 30_000;
      for (let via = 0; performance.now() < deadline; via = (via + 1) % conns.length) {
        if (!cluster.nodes[via]!.running) continue;
        const leader = await leaderVia(stream, via);
        if (leader >= 0) return leader;
        await sleep(100);
      }
      throw new Error(`${stream} has no leader after 30 s`);
    },
    /**
     * When a node other than `old` first reported leading `stream`, or null after
     * `timeoutMs`. Asked of every other node every 100 ms without waiting for earlier
     * answers: a leaderless stream answers nothing until the 1 s timeout.
     */
    newLeaderAt(stream: string, old: number, timeoutMs = 30_000): Promise<number | null> {
      const others = cluster.nodes.map((_, i) => i).filter((i) => i !== old);
      return new Promise((resolve) => {
        const deadline = performance.now() + timeoutMs;
        let settled = false;
        const ask = () => {
          if (settled) return;
          if (performance.now() > deadline) {
            settled = true;
            resolve(null);
            return;
          }
          for (const via of others) {
            void leaderVia(stream, via).then((leader) => {
              if (settled || leader < 0 || leader === old) return;
              settled = true;
              resolve(performance.now());
            });
          }
          setTimeout(ask, 100);
        };
        ask();
      });
    },
    close: () => Promise.all(conns.map((nc) => nc.close())),
  };
}

export type ClusterEyes = Awaited<ReturnType<typeof clusterEyes>>;

/**
 * SIGKILL of the node leading `stream`; once another node leads it, the node is started
 * again and the cluster waited for until every stream is led and current.
 */
export async function killStreamLeader(
  cluster: LocalNatsCluster,
  eyes: ClusterEyes,
  stream: string,
): Promise<{
  at: number;
  node: string;
  electedMs: number | null;
  restartedMs: number;
  recoveredMs: number;
}> {
  const victim = await eyes.leaderOf(stream);
  const node = cluster.nodes[victim]!.name.replace(/^.*-/, '');
  const at = performance.now();
  await cluster.kill(victim);
  const elected = await eyes.newLeaderAt(stream, victim);
  await cluster.restart(victim);
  const restartedMs = Math.round(performance.now() - at);
  await cluster.waitForLeaders(60_000);
  return {
    at,
    node,
    electedMs: elected === null ? null : Math.round(elected - at),
    restartedMs,
    recoveredMs: Math.round(performance.now() - at),
  };
}
