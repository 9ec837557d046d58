import { randomBytes } from 'node:crypto';
import { createDatabase, dropDatabase, terminateBackends } from '@dzpay/testkit/databases';
import {
  startNatsServer,
  startRedisServer,
  type LocalNatsServer,
  type LocalRedisServer,
} from '@dzpay/testkit/servers';
import { migrateAll } from '../services/gateway/src/cli/service-migrations.ts';

/**
 * The campaign's own infrastructure: a NATS server and a Redis server on free loopback
 * ports, which it may kill without disturbing anything else on the machine, and a
 * database of its own on the machine's Postgres (whose backends it may terminate; the
 * server itself is shared and never stopped).
 */
export interface CampaignInfra {
  nats: LocalNatsServer;
  redis: LocalRedisServer;
  databaseUrl: string;
  /** Terminates every backend of the campaign's database; answers how many. */
  terminatePostgresBackends(): Promise<number>;
  stop(): Promise<void>;
}

/** The machine's Postgres, as an admin that may create databases. */
const ADMIN_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function startCampaignInfra(seed: number): Promise<CampaignInfra> {
  const database = `dzpay_campaign_${seed >>> 0}_${randomBytes(3).toString('hex')}`;
  const [nats, redis, databaseUrl] = await Promise.all([
    startNatsServer({ name: `campaign-${seed >>> 0}` }),
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
