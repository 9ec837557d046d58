import type { Logger, NatsConnection, Sql } from '@dzpay/platform';

/** What every group of NATS handlers is wired with. */
export interface ServiceWiring {
  nats: NatsConnection;
  prefix: string;
  sql: Sql;
  logger: Logger;
  clock: () => Date;
}
