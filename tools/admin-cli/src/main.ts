import {
  BaseEnv,
  connectNats,
  connectPostgres,
  natsAccessOf,
  isAppError,
  loadConfig,
  migrate,
  type NatsConnection,
  type Sql,
  secretsKey,
} from '@dzpay/platform';
import { CommanderError } from 'commander';
import { z } from 'zod';
import { accountsRepository, dashboardUsers } from '@dzpay/accounts';
import { migrateAll, migrationsOf } from '@dzpay/stack';
import { buildProgram } from './program.ts';

const config = loadConfig(
  BaseEnv.pick({
    DATABASE_URL: true,
    NATS_URL: true,
    NATS_PREFIX: true,
    // The CLI's own NATS user (`cli`: it may only ask qr-config for codes), docs/nats-security.md.
    NATS_USER: true,
    NATS_PASSWORD: true,
    NATS_TLS_CA_FILE: true,
    NATS_TLS_CERT_FILE: true,
    NATS_TLS_KEY_FILE: true,
  }).extend({
    SECRETS_KEY: z.string().optional(),
  }),
);
let sql: Sql | undefined;
let nats: NatsConnection | undefined;

/** The accounts schema, migrated on first use. */
async function accountsSql(): Promise<Sql> {
  if (!sql) {
    const { schema, folder } = migrationsOf('gateway');
    sql = connectPostgres(config.DATABASE_URL, schema, 2);
    await migrate(sql, schema, folder);
  }
  return sql;
}

const program = buildProgram({
  natsPrefix: config.NATS_PREFIX,
  secretsKey: config.SECRETS_KEY ? secretsKey(config.SECRETS_KEY) : undefined,
  print: (text) => console.log(text),
  accounts: async () => accountsRepository(await accountsSql()),
  dashboardUsers: async () => dashboardUsers(await accountsSql()),
  nats: async () =>
    (nats ??= await connectNats(config.NATS_URL, 'dzpay-cli', natsAccessOf(config))),
  migrateAll: () => migrateAll(config.DATABASE_URL),
});

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else {
    console.error(isAppError(error) ? `${error.code}: ${error.message}` : String(error));
    process.exitCode = 1;
  }
} finally {
  await sql?.end();
  await nats?.close();
}
