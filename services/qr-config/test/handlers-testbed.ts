import {
  connectNats,
  connectPostgres,
  createLogger,
  migrate,
  type NatsConnection,
  type RpcServer,
  type Sql,
} from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { qrRepository } from '../src/adapters/qr-repository.ts';
import { serveQrHandlers } from '../src/handlers/qr-handlers.ts';

/** qr-config's NATS handlers over a migrated schema of their own, on their own infra. */
export interface QrHandlersTestbed {
  infra: IsolatedInfra;
  /** The qr schema. */
  sql: Sql;
  nats: NatsConnection;
  close(): Promise<void>;
}

/** Serves the handlers with `clock` as their time, so a test can move it. */
export async function startQrHandlersTestbed(
  label: string,
  clock: () => Date,
): Promise<QrHandlersTestbed> {
  const infra = await isolatedInfra(label);
  const sql = connectPostgres(infra.databaseUrl, 'qr', 4);
  let nats: NatsConnection | undefined;
  let servers: RpcServer[] = [];
  async function close() {
    await Promise.all(servers.map((server) => server.stop()));
    await nats?.close();
    await sql.end();
    await infra.cleanup();
  }
  try {
    await migrate(sql, 'qr', new URL('../migrations/', import.meta.url));
    nats = await connectNats(infra.natsUrl, `${label}-test`);
    servers = await serveQrHandlers({
      nats,
      prefix: infra.natsPrefix,
      repository: qrRepository(sql),
      logger: createLogger('qr-config', 'silent'),
      clock,
    });
  } catch (error) {
    await close();
    throw error;
  }
  return { infra, sql, nats, close };
}
