import { randomBytes } from 'node:crypto';
import { createDatabase, dropDatabase, terminateBackends } from '@dzpay/testkit/databases';
import { startNatsCluster, type LocalNatsCluster } from '@dzpay/testkit/nats-cluster';
import { startNatsServer, startRedisServer, type LocalRedisServer } from '@dzpay/testkit/servers';
import { migrateAll } from '@dzpay/stack';

/**
 * The campaign's NATS: one server, or a JetStream cluster of three. Node `index` may be
 * killed and restarted on its store; the one server is node 0.
 */
interface CampaignNats {
  /** What NATS_URL carries: every node, comma-separated. */
  url: string;
  nodes: number;
  /** How many copies of each stream, bucket and consumer the services are told to keep. */
  replicas: number;
  kill(index: number): Promise<void>;
  /** Starts the node again and waits until every stream and consumer is led and current. */
  restart(index: number): Promise<void>;
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
  const [nats, redis, databaseUrl] = await Promise.all([
    options.cluster ? startNatsCluster({ size: 3 }).then(clusterNats) : singleNats(seed),
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

async function singleNats(seed: number): Promise<CampaignNats> {
  const server = await startNatsServer({ name: `campaign-${seed >>> 0}` });
  return {
    url: server.url,
    nodes: 1,
    replicas: 1,
    kill: () => server.kill(),
    restart: () => server.restart(),
    stop: () => server.stop(),
  };
}

function clusterNats(cluster: LocalNatsCluster): CampaignNats {
  return {
    url: cluster.urls,
    nodes: cluster.nodes.length,
    replicas: cluster.nodes.length,
    kill: (index) => cluster.kill(index),
    async restart(index) {
      await cluster.restart(index);
      await cluster.waitForLeaders(60_000);
    },
    stop: () => cluster.stop(),
  };
}
