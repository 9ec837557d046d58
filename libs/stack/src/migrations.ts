import { existsSync } from 'node:fs';
import { connectPostgres, migrate, type Logger, type Sql } from '@dzpay/platform';
import { SERVICES, type ServiceName } from './services.ts';

/**
 * The Postgres schema each service works in, and whether it keeps an outbox (the
 * platform's table, libs/platform/sql/outbox.sql). A service that owns its schema keeps
 * its migrations in `services/<name>/migrations/` (NNN_name.sql); the dashboard owns
 * none: it works in the accounts schema the gateway migrates.
 */
const SCHEMAS: Record<ServiceName, { schema: string; outbox: boolean }> = {
  gateway: { schema: 'accounts', outbox: false },
  'qr-config': { schema: 'qr', outbox: false },
  payments: { schema: 'payments', outbox: true },
  status: { schema: 'status', outbox: false },
  'webhook-dispatcher': { schema: 'webhooks', outbox: true },
  receipts: { schema: 'receipts', outbox: false },
  dashboard: { schema: 'accounts', outbox: false },
};

export interface SchemaMigrations {
  schema: string;
  /** The platform's outbox comes first (migrate's `outbox` option). */
  outbox: boolean;
  /** The folder of NNN_name.sql files, applied in name order. */
  folder: URL;
}

function folderOf(name: ServiceName): URL {
  return new URL(`../../../services/${name}/migrations/`, import.meta.url);
}

/** Services that keep migrations of their own, found by the folder's presence, in start order. */
function owners(): ServiceName[] {
  return SERVICES.filter((name) => existsSync(folderOf(name)));
}

/**
 * The schema a service works in and the migrations that make it: its own folder, or the
 * folder of the service that owns its schema. A service applies them at start.
 */
export function migrationsOf(name: ServiceName): SchemaMigrations {
  const { schema, outbox } = SCHEMAS[name];
  const owner = owners().find((candidate) => SCHEMAS[candidate].schema === schema);
  if (!owner) throw new Error(`no service keeps the migrations of schema ${schema}`);
  return { schema, outbox, folder: folderOf(owner) };
}

/** Every schema with its migrations, once each, in the stack's start order. */
export function serviceMigrations(): SchemaMigrations[] {
  return owners().map(migrationsOf);
}

/**
 * Applies every service's migrations, each schema under its own advisory lock (services
 * also migrate their own schema at start; this runs them all ahead of a rollout:
 * `pnpm db:migrate`, `pnpm start`, the Kubernetes migration Job). Returns the schemas.
 */
export async function migrateAll(databaseUrl: string, logger?: Logger): Promise<string[]> {
  const all = serviceMigrations();
  for (const { schema, folder, outbox } of all) {
    const sql = connectPostgres(databaseUrl, schema, 1);
    try {
      await migrate(sql, schema, folder, logger, { outbox });
    } finally {
      await sql.end();
    }
  }
  return all.map(({ schema }) => schema);
}

/** A service's schema and migrations in the shape startRuntime takes them. */
export function runtimeSchemaOf(name: ServiceName): {
  schema: string;
  migrations: URL;
  outbox: boolean;
} {
  const { schema, folder, outbox } = migrationsOf(name);
  return { schema, migrations: folder, outbox };
}

/** Applies one service's migrations over a pool of its schema (service tests). */
export function migrateService(sql: Sql, name: ServiceName): Promise<string[]> {
  const { schema, folder, outbox } = migrationsOf(name);
  return migrate(sql, schema, folder, undefined, { outbox });
}
