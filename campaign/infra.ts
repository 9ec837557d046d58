import { randomBytes } from 'node:crypto';
import { createDatabase, dropDatabase, terminateBackends } from '@dzpay/testkit/databases';
import { startNatsCluster, type LocalNatsCluster } from '@dzpay/testkit/nats-cluster';
import {
  startRedisServer,
  startSecuredNatsServer,
  type LocalRedisServer,
} from '@dzpay/testkit/servers';
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
  stop(): Promise<void>;
}

/**
 * The campaign's own infrastructure: NATS and a Redis server on free loopback ports,
 * which it may kill without disturbing anything else on the machine, and a database of
 * its own on the machine's Postgres (whose backends it may terminate; the server itself
 * is shared and never stopped).
 */
export interface CampaignInfra {
  nats: CampaignNats;
  redis: LocalRedisServer;
  databaseUrl: string;
  /** Terminates every backend of the campaign's database; answers how many. */
  terminatePostgresBackends(): Promise<number>;
  stop(): Promise<void>;
}

/** The machine's Postgres, as an admin that may create databases. */
const ADMIN_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function startCampaignInfra(
  seed: number,
  options: { cluster: boolean },
): Promise<CampaignInfra> {
  const database = `dzpay_campaign_${seed >>> 0}_${randomBytes(3).toString('hex')}`;
  const users = localNatsUsers(CAMPAIGN_NATS_PREFIX);
  const secured = { authorization: users.authorization, probe: users.admin };
  const [nats, redis, databaseUrl] = await Promise.all([
    options.cluster
      ? startNatsCluster({ size: 3, ...secured }).then((cluster) => clusterNats(cluster, users))
      : singleNats(seed, users),
    startRedisServer(),
    createDatabase(ADMIN_POSTGRES_URL, database),
  ]);
  await migrateAll(databaseUrl);
  return {
    nats,
    redis,
    databaseUrl,
    terminatePostgresBackends: () =>
      terminateBackends(ADMIN_POSTGRES_URL, database, { applicationNamePrefix: 'dzpay-' }),
    async stop() {
      await Promise.allSettled([nats.stop(), redis.stop()]);
      await dropDatabase(ADMIN_POSTGRES_URL, database);
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
    async restart(index) {
      await cluster.restart(index);
      await cluster.waitForLeaders(60_000);
    },
    stop: () => cluster.stop(),
  };
}
