import { createLogger, connectNats, connectPostgres } from '@dzpay/platform';
import type { NatsConnection, RpcServer, Sql } from '@dzpay/platform';
import { migrateService } from '@dzpay/stack';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import type { ReadingContext } from '../src/context.ts';

/** A group of payments' NATS handlers served alone over infra of its own, and its schema. */
export interface HandlersTestbed {
  infra: IsolatedInfra;
  /** The payments schema, migrated: what tests seed rows into. */
  sql: Sql;
  nats: NatsConnection;
  stop: () => Promise<void>;
}

/** Serves the handlers `serve` starts, on the real clock, with `connections` to Postgres. */
export async function startHandlersTestbed(
  label: string,
  serve: (ctx: ReadingContext) => Promise<RpcServer[]>,
  connections = 4,
): Promise<HandlersTestbed> {
  const infra = await isolatedInfra(label);
  const sql = connectPostgres(infra.databaseUrl, 'payments', connections);
  let nats: NatsConnection | undefined;
  let servers: RpcServer[] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await nats?.close();
    await sql.end();
    await infra.cleanup();
  };
  try {
    await migrateService(sql, 'payments');
    nats = await connectNats(infra.natsUrl, `${label}-test`);
    servers = await serve({
      nats,
      prefix: infra.natsPrefix,
      sql,
      logger: createLogger('payments', 'silent'),
      clock: () => new Date(),
    });
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return { infra, sql, nats, stop };
}
