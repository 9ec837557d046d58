import { connectPostgres, migrate } from '../src/db.ts';

const NO_MIGRATIONS = new URL('./migrations-none/', import.meta.url);

/**
 * A schema of its own holding the platform's outbox (sql/outbox.sql), made by migrate()
 * as the services get it, the trigger that wakes relays included. `createdAt` is its
 * column's default: the table's now(), or clock_timestamp() where each commit must get
 * its own.
 */
export async function createOutboxSchema(
  databaseUrl: string,
  schema: string,
  createdAt: 'now()' | 'clock_timestamp()' = 'now()',
): Promise<void> {
  const setup = connectPostgres(databaseUrl, schema, 1);
  try {
    await migrate(setup, schema, NO_MIGRATIONS, undefined, { outbox: true });
    if (createdAt !== 'now()') {
      await setup.unsafe(
        `alter table ${schema}.outbox alter column created_at set default ${createdAt}`,
      );
    }
  } finally {
    await setup.end();
  }
}
