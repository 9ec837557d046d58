// `pnpm db:migrate`: creates the database when missing and applies every service's
// migrations. Services also migrate at start; this is for deploy jobs and developers.
import { BaseEnv, connectPostgres, createLogger, loadConfig, migrate } from '@dzpay/platform';
import { ensureDatabase } from './database.ts';
import { SERVICE_MIGRATIONS } from './service-migrations.ts';

const { DATABASE_URL } = loadConfig(BaseEnv.pick({ DATABASE_URL: true }));
const logger = createLogger('migrate', 'info');
await ensureDatabase(DATABASE_URL);
for (const { schema, folder } of SERVICE_MIGRATIONS) {
  const sql = connectPostgres(DATABASE_URL, schema, 1);
  await migrate(sql, schema, folder, logger);
  await sql.end();
}
logger.info('all migrations applied');
