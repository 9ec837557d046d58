// `pnpm db:migrate`: creates the database when missing and applies every service's
// migrations. Services also migrate at start; this is for developers (the Kubernetes
// migration Job runs `dzpay migrate`, the same code, without creating the database).
import { BaseEnv, createLogger, loadConfig } from '@dzpay/platform';
import { migrateAll } from '@dzpay/stack';
import { ensureDatabase } from './database.ts';

const { DATABASE_URL } = loadConfig(BaseEnv.pick({ DATABASE_URL: true }));
const logger = createLogger('migrate', 'info');
await ensureDatabase(DATABASE_URL);
await migrateAll(DATABASE_URL, logger);
logger.info('all migrations applied');
