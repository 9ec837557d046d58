import { connectPostgres, migrate, type Logger } from '@dzpay/platform';
// Each service's own description of its schema; relative imports of files without
// dependencies, so the gateway image (which carries every service's migration files, but
// only the gateway's packages) can run them all.
import { migrations as accounts } from '../migrations.ts';
import { migrations as payments } from '../../../payments/src/migrations.ts';
import { migrations as qr } from '../../../qr-config/src/migrations.ts';
import { migrations as receipts } from '../../../receipts/src/migrations.ts';
import { migrations as status } from '../../../status/src/migrations.ts';
import { migrations as webhooks } from '../../../webhook-dispatcher/src/migrations.ts';

/** Every service's schema and migrations folder, in the stack's start order. */
export const SERVICE_MIGRATIONS = [accounts, qr, payments, status, webhooks, receipts] as const;

/**
 * Applies every service's migrations, each schema under its own advisory lock (services
 * also migrate their own schema at start; this runs them all ahead of a rollout:
 * `pnpm db:migrate`, `pnpm start`, the Kubernetes migration Job). Returns the schemas.
 */
export async function migrateAll(databaseUrl: string, logger?: Logger): Promise<string[]> {
  for (const { schema, folder } of SERVICE_MIGRATIONS) {
    const sql = connectPostgres(databaseUrl, schema, 1);
    try {
      await migrate(sql, schema, folder, logger);
    } finally {
      await sql.end();
    }
  }
  return SERVICE_MIGRATIONS.map(({ schema }) => schema);
}
