import { connectPostgres, migrate, type Logger } from '@dzpay/platform';

const folder = (service: string) => new URL(`../../../${service}/migrations/`, import.meta.url);

/** Every service's schema and migrations folder. */
const SERVICE_MIGRATIONS = [
  { schema: 'accounts', folder: folder('gateway') },
  { schema: 'qr', folder: folder('qr-config') },
  { schema: 'payments', folder: folder('payments') },
  { schema: 'status', folder: folder('status') },
  { schema: 'webhooks', folder: folder('webhook-dispatcher') },
  { schema: 'receipts', folder: folder('receipts') },
] as const;

/**
 * Applies every service's migrations, each schema under its own advisory lock (services
 * also migrate their own schema at start; this runs them all ahead of a rollout:
 * `pnpm db:migrate`, `pnpm start`, the Kubernetes migration Job). Returns the schemas.
 */
export async function migrateAll(databaseUrl: string, logger?: Logger): Promise<string[]> {
  for (const { schema, folder: migrations } of SERVICE_MIGRATIONS) {
    const sql = connectPostgres(databaseUrl, schema, 1);
    try {
      await migrate(sql, schema, migrations, logger);
    } finally {
      await sql.end();
    }
  }
  return SERVICE_MIGRATIONS.map(({ schema }) => schema);
}
