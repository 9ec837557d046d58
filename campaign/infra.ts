import { randomBytes } from 'node:crypto';
import { createDatabase, dropDatabase, terminateBackends } from '@dzpay/testkit/databases';
import { startNatsCluster, type LocalNatsCluster } from '@dzpay/testkit/nats-cluster';
import { startNetLab } from '@dzpay/testkit/netlab';
import { startPostgresPair, type FailoverTimings } from '@dzpay/testkit/postgres-pair';
import {
  startRedisServer,
  startSecuredNatsServer,
  type LocalRedisServer,
} from '@dzpay/testkit/servers';
import { commitProbe } from '@dzpay/platform';
import { migrateAll } from '@dzpay/stack';
import { localNatsUsers, type LocalNatsUsers } from '@dzpay/stack/nats-users';

/** NATS_PREFIX of every service: their subjects, streams and buckets carry it. */
export const CAMPAIGN_NATS_PREFIX = 'camp';

/**
 * The campaign's NATS: one server, or a JetStream cluster of three, secured as
 * production's is (each service logs in as its own user, limited to its role's subjects;
 * the nodes' routes log in too). Node `index` may be killed and restarted on its store;
 * the one server is node 0.
 */
interface CampaignNats {
  /** What NATS_URL carries: every node, comma-separated. */
  url: string;
  /** Each service's user (and the harness' unrestricted one, for its own checks). */
  users: LocalNatsUsers;
  nodes: number;
  /** How many copies of each stream, bucket and consumer the services are told to keep. */
  replicas: number;
  kill(index: number): Promise<void>;
  /** Starts the node again and waits until every stream and consumer is led and current. */
  restart(index: number): Promise<void>;
  /** What the servers logged (the last ~200 KB of each node). */
  output(): string;
  /** Resolves once every stream and consumer is led and current again (after a heal). */
  settled(): Promise<void>;
  /** Cuts node `index` from its peers (a cluster in a lab only); its clients still reach it. */
  partition?: (index: number) => Promise<void>;
  stop(): Promise<void>;
}

/** What one service replica connects to: its own addresses of each node, on a cluster run. */
interface ClientEndpoints {
  NATS_URL: string;
  DATABASE_URL: string;
}

/**
 * The campaign's own infrastructure: NATS and a Redis server on free loopback ports,
 * which it may kill without disturbing anything else on the machine, and a database of
 * its own: on the machine's Postgres (whose backends it may terminate; the server itself
 * is shared and never stopped), or on a cluster run, on a primary and synchronous standby
 * of its own that it may fail over.
 */
export interface CampaignInfra {
  nats: CampaignNats;
  redis: LocalRedisServer;
  databaseUrl: string;
  /** Terminates every backend of the campaign's database; answers how many. */
  terminatePostgresBackends(): Promise<number>;
  /** Loses the primary's machine and promotes the standby (a cluster run's pair only). */
  failoverPostgres?: (options: { replicationStalledMs: number }) => Promise<FailoverTimings>;
  /**
   * The addresses client `id` (one service replica) reaches NATS and Postgres by. On a
   * cluster run each client has its own, so one can be cut while it keeps running.
   */
  endpointsFor(id: number): Promise<ClientEndpoints>;
  /** Drops every packet between client `id` and NATS, Postgres or both (cluster runs only). */
  cutClient?: (id: number, from: 'nats' | 'postgres' | 'both') => Promise<void>;
  /** Ends every cut of the lab (nodes' and clients'). */
  heal(): Promise<void>;
  /** Null when the campaign's database commits now (within 2 s), else why not. */
  commits(): Promise<string | null>;
  stop(): Promise<void>;
}

/** The machine's Postgres, as an admin that may create databases. */
const ADMIN_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function startCampaignInfra(
  seed: number,
  options: { cluster: boolean; logDir: string },
): Promise<CampaignInfra> {
  const database = `dzpay_campaign_${seed >>> 0}_${randomBytes(3).toString('hex')}`;
  const users = localNatsUsers(CAMPAIGN_NATS_PREFIX);
  const secured = { authorization: users.authorization, probe: users.admin };
  // A cluster run lives in a network of its own: NATS nodes and Postgres servers each in
  // a namespace, so partitions are real dropped packets.
  const lab = options.cluster ? await startNetLab() : null;
  const [cluster, redis, pair] = await Promise.all([
    lab ? startNatsCluster({ size: 3, ...secured, network: lab }) : null,
    startRedisServer(),
    lab ? startPostgresPair({ network: lab, logDir: options.logDir }) : null,
  ]);
  const nats = cluster ? clusterNats(cluster, users) : await singleNats(seed, users);
  // The pair's primary moves at each failover: the admin URL is the one of the moment.
  const adminUrl = () => pair?.primaryUrl('postgres') ?? ADMIN_POSTGRES_URL;
  const created = await createDatabase(adminUrl(), database);
  const databaseUrl = pair ? pair.url(database) : created;
  await migrateAll(databaseUrl);
  const clients = new Map<number, { nats: string[]; postgres: string[] }>();
  return {
    nats,
    redis,
    databaseUrl,
    terminatePostgresBackends: () =>
      terminateBackends(adminUrl(), database, { applicationNamePrefix: 'dzpay-' }),
    ...(pair ? { failoverPostgres: (failover) => pair.failover(failover) } : {}),
    async endpointsFor(id) {
      if (!lab || !cluster || !pair) return { NATS_URL: nats.url, DATABASE_URL: databaseUrl };
      const natsAddresses = await Promise.all(cluster.hosts.map((h) => lab.alias(h, id)));
      const pgAddresses = await Promise.all(pair.hosts.map((h) => lab.alias(h, id)));
      clients.set(id, { nats: natsAddresses, postgres: pgAddresses });
      // Each Postgres host's alias by the host itself, whatever order the URL asks in.
      const aliasOf = new Map(pair.hosts.map((host, i) => [host, pgAddresses[i]!]));
      return {
        NATS_URL: natsAddresses.map((address) => `nats://${address}:4222`).join(','),
        DATABASE_URL: pair.url(database, (host) => aliasOf.get(host)!),
      };
    },
    ...(lab
      ? {
          async cutClient(id, from) {
            const client = clients.get(id);
            if (!client) throw new Error(`client ${id} has no addresses of its own`);
            const cut = [
              ...(from === 'postgres' ? [] : client.nats),
              ...(from === 'nats' ? [] : client.postgres),
            ];
            for (const address of cut) await lab.cutAddress(address);
            return;
          },
        }
      : {}),
    heal: () => lab?.heal() ?? Promise.resolve(),
    async commits() {
      const probe = commitProbe(databaseUrl, 2_000);
      try {
        await probe.check();
        return null;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      } finally {
        await probe.close();
      }
    },
    async stop() {
      await Promise.allSettled([nats.stop(), redis.stop()]);
      if (pair) await pair.stop();
      else await dropDatabase(ADMIN_POSTGRES_URL, database);
      await lab?.stop();
    },
  };
}

async function singleNats(seed: number, users: LocalNatsUsers): Promise<CampaignNats> {
  const server = await startSecuredNatsServer({
    name: `campaign-${seed >>> 0}`,
    authorization: users.authorization,
    probe: users.admin,
  });
  return {
    url: server.url,
    users,
    nodes: 1,
    replicas: 1,
    kill: () => server.kill(),
    restart: () => server.restart(),
    output: () => server.output(),
    settled: () => Promise.resolve(),
    stop: () => server.stop(),
  };
}

function clusterNats(cluster: LocalNatsCluster, users: LocalNatsUsers): CampaignNats {
  return {
    url: cluster.urls,
    users,
    nodes: cluster.nodes.length,
    replicas: cluster.nodes.length,
    kill: (index) => cluster.kill(index),
    output: () => cluster.nodes.map((node) => node.output()).join('\n'),
    partition: (index) => cluster.partition(index, 'from-peers'),
    settled: () => cluster.waitForLeaders(60_000),
    async restart(index) {
      await cluster.restart(index);
      await cluster.waitForLeaders(60_000);
    },
    stop: () => cluster.stop(),
  };
}
