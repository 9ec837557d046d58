import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { LabHost, NetLab } from './netlab.ts';
import { freePort } from './processes.ts';
import { launchServer, type LocalServer } from './server-process.ts';
import { connectAsProbe, natsAnswers, natsServerConfig, type NatsProbeAuth } from './servers.ts';

// Deliberately free of vitest: the fault campaign starts clusters from a plain `node` CLI.

/** One node of a local cluster: its client URL, and kill/restart on the same store. */
export interface ClusterNode extends LocalServer {
  readonly name: string;
}

export interface LocalNatsCluster {
  readonly nodes: readonly ClusterNode[];
  /** Each node's host, when the cluster runs in a lab. */
  readonly hosts: readonly LabHost[];
  /** Every node's client URL, comma-separated: what NATS_URL carries. */
  readonly urls: string;
  /** SIGKILL of node `index` (0-based); its store stays for the restart. */
  kill(index: number): Promise<void>;
  /** Starts node `index` again on its port and store, and waits until it answers. */
  restart(index: number): Promise<void>;
  /**
   * Resolves once every stream has a leader and all its replicas are current (a
   * restarted node has caught up) and every consumer has a leader, or throws after
   * `timeoutMs`.
   */
  waitForLeaders(timeoutMs?: number): Promise<void>;
  /**
   * On a cluster in a network lab: cuts node `index` from its peers (clients still reach
   * it), or from everyone; heal() ends every cut.
   */
  partition(index: number, how: 'from-peers' | 'from-everyone'): Promise<void>;
  heal(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A JetStream cluster of `size` nodes on loopback (Debian's nats-server), each with its own
 * config file (`cluster { routes }`) and store directory, on free ports. With an
 * `authorization` block (libs/stack's generator), clients must log in as one of its
 * users, and the nodes' routes authenticate with a user of their own; `probe` is the
 * user the harness inspects the cluster as.
 */
export async function startNatsCluster(
  options: {
    size?: number;
    authorization?: string;
    probe?: NatsProbeAuth;
    /** Each node in a host of this lab (its own namespace and address), so it can be cut off. */
    network?: NetLab;
  } = {},
): Promise<LocalNatsCluster> {
  const size = options.size ?? 3;
  const dir = await mkdtemp(join(tmpdir(), 'dzpay-nats-cluster-'));
  const clusterName = `dzpay-${randomBytes(3).toString('hex')}`;
  const hosts: (LabHost | null)[] = [];
  for (let index = 0; index < size; index++)
    hosts.push(options.network ? await options.network.addHost(`n${index + 1}`) : null);
  const specs = await Promise.all(
    Array.from({ length: size }, async (_, index) => ({
      name: `${clusterName}-n${index + 1}`,
      host: hosts[index]?.address ?? '127.0.0.1',
      ns: hosts[index]?.ns,
      // A node in a namespace has the whole port range of its address to itself.
      port: hosts[index] ? 4222 : await freePort(),
      routePort: hosts[index] ? 6222 : await freePort(),
      storeDir: join(dir, `n${index + 1}`),
      config: join(dir, `n${index + 1}.conf`),
    })),
  );
  // A route is a connection like any other: on a secured cluster it logs in too, so no
  // client can pose as a node.
  const route =
    options.authorization !== undefined
      ? { user: 'route', password: randomBytes(18).toString('base64url') }
      : undefined;
  const credentials = route ? `${route.user}:${route.password}@` : '';
  const routes = specs.map((spec) => `nats-route://${credentials}${spec.host}:${spec.routePort}`);
  for (const spec of specs) {
    await writeFile(
      spec.config,
      natsServerConfig({
        name: spec.name,
        // In a namespace, every address of its host (aliases included) is the node's.
        host: spec.ns ? '0.0.0.0' : spec.host,
        port: spec.port,
        storeDir: spec.storeDir,
        ...(options.authorization !== undefined ? { authorization: options.authorization } : {}),
        cluster: [
          `name: "${clusterName}"`,
          `listen: "${spec.host}:${spec.routePort}"`,
          // Clients keep the addresses they were given (a lab's per-client aliases),
          // never the ones the nodes would advertise.
          ...(spec.ns ? ['no_advertise: true'] : []),
          ...(route
            ? [`authorization { user: "${route.user}", password: "${route.password}", timeout: 2 }`]
            : []),
          `routes: [${routes.map((r) => `"${r}"`).join(', ')}]`,
        ],
      }),
      { mode: 0o600 },
    );
  }
  // The nodes must start together: JetStream answers only once a quorum has elected
  // its meta leader.
  const started = await Promise.allSettled(
    specs.map((spec) =>
      launchServer({
        binary: 'nats-server',
        args: ['-c', spec.config],
        ...(spec.ns ? { netns: spec.ns } : {}),
        url: `nats://${spec.host}:${spec.port}`,
        port: spec.port,
        ownedDirs: [],
        answers: () => natsAnswers(`nats://${spec.host}:${spec.port}`, spec.name, options.probe),
        readyTimeoutMs: 30_000,
      }).then((server) => Object.assign(server, { name: spec.name })),
    ),
  );
  const nodes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stopAll = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  const urls = nodes.map((node) => node.url).join(',');
  try {
    await waitForPlacement(urls, size, options.probe);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const nodeAt = (index: number): ClusterNode => {
    const node = nodes[index];
    if (!node) throw new Error(`the cluster has no node ${index}`);
    return node;
  };
  return {
    nodes,
    hosts: hosts.flatMap((host) => (host ? [host] : [])),
    urls,
    kill: (index) => nodeAt(index).kill('SIGKILL'),
    restart: (index) => nodeAt(index).restart(),
    waitForLeaders: (timeoutMs = 30_000) => waitForLeaders(urls, timeoutMs, options.probe),
    async partition(index, how) {
      const lab = options.network;
      const host = hosts[index];
      if (!lab || !host) throw new Error('only a cluster started in a network lab can be cut');
      if (how === 'from-everyone') {
        await lab.isolate(host);
        return;
      }
      for (const peer of hosts) if (peer && peer !== host) await lab.cut(host, peer);
    },
    heal: () => options.network?.heal() ?? Promise.resolve(),
    stop: stopAll,
  };
}

/**
 * Every node answering is not yet a cluster that can place a stream on all of them: the
 * meta leader learns of its peers a moment later, and until then a stream of `size`
 * replicas is refused ("no suitable peers for placement"). Waits until one can be made.
 */
async function waitForPlacement(
  urls: string,
  size: number,
  auth: NatsProbeAuth | undefined,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const name = `PLACEMENT_PROBE_${randomBytes(4).toString('hex')}`;
  let lastProblem: unknown = 'not tried yet';
  while (Date.now() < deadline) {
    const nc = await connectAsProbe(urls, auth).catch((error: unknown) => {
      lastProblem = error;
      return null;
    });
    if (nc) {
      try {
        const jsm = await jetstreamManager(nc, { timeout: 2_000 });
        await jsm.streams.add({ name, subjects: [`${name}.>`], num_replicas: size });
        await jsm.streams.delete(name);
        return;
      } catch (error) {
        lastProblem = error;
      } finally {
        await nc.close();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `the NATS cluster cannot place a stream on ${size} nodes: ${String(lastProblem)}`,
  );
}

async function waitForLeaders(
  urls: string,
  timeoutMs: number,
  auth: NatsProbeAuth | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'not asked yet';
  while (Date.now() < deadline) {
    try {
      const problem = await leaderProblem(urls, auth);
      if (!problem) return;
      lastProblem = problem;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`JetStream assets not led and current after ${timeoutMs} ms: ${lastProblem}`);
}

/** The first stream without a leader or with a lagging replica, or consumer without a leader, or null. */
async function leaderProblem(
  urls: string,
  auth: NatsProbeAuth | undefined,
): Promise<string | null> {
  const nc = await connectAsProbe(urls, auth);
  try {
    const jsm: JetStreamManager = await jetstreamManager(nc, { timeout: 2_000 });
    for await (const stream of jsm.streams.list()) {
      const name = stream.config.name;
      const problem = clusterProblem(`stream ${name}`, stream.cluster);
      if (problem) return problem;
      // A consumer only needs a leader: an idle one's replicas may report themselves
      // behind for long after a restart, with nothing to catch up on.
      for await (const consumer of jsm.consumers.list(name)) {
        if (!consumer.cluster?.leader) return `consumer ${name}/${consumer.name} has no leader`;
      }
    }
    return null;
  } finally {
    await nc.close();
  }
}

function clusterProblem(
  what: string,
  cluster:
    | { leader?: string; replicas?: { name: string; current: boolean; offline?: boolean }[] }
    | undefined,
): string | null {
  if (!cluster?.leader) return `${what} has no leader`;
  const behind = (cluster.replicas ?? []).find((replica) => !replica.current || replica.offline);
  return behind ? `${what}: replica ${behind.name} is not current` : null;
}
