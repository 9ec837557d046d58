import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { connectPostgres, migrate, type Logger, type Sql } from '@dzpay/platform';
import { SERVICES, type ServiceName } from './services.ts';

/**
 * The Postgres schema each service works in, and whether it keeps an outbox (the
 * platform's table, libs/platform/sql/outbox.sql). The gateway and the dashboard both work
 * in the accounts schema, whose code is libs/accounts.
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

const packageFolder = (path: string) => new URL(`../../../${path}/migrations/`, import.meta.url);

/**
 * Where a schema's migrations (NNN_name.sql) live, found by the folder's presence as
 * entryOf finds main.ts: in `libs/<schema>/migrations/` when a library holds the schema's
 * code for the services working in it (libs/accounts), else in
 * `services/<name>/migrations/` of the service working in it. Exactly one such folder:
 * the same schema migrated from two folders would apply whichever file names are new.
 */
function folderOfSchema(schema: string): URL {
  const candidates = [
    packageFolder(`libs/${schema}`),
    ...SERVICES.filter((name) => SCHEMAS[name].schema === schema).map((name) =>
      packageFolder(`services/${name}`),
    ),
  ].filter((folder) => existsSync(folder));
  if (candidates.length === 0) {
    throw new Error(`no package keeps the migrations of schema ${schema}`);
  }
  if (candidates.length > 1) {
    const where = candidates.map((folder) => fileURLToPath(folder)).join(', ');
    throw new Error(`the migrations of schema ${schema} are in more than one folder: ${where}`);
  }
  return candidates[0]!;
}

/**
 * The schema a service works in and the migrations that make it, wherever they live
 * (folderOfSchema). A service applies them at start.
 */
export function migrationsOf(name: ServiceName): SchemaMigrations {
  const { schema, outbox } = SCHEMAS[name];
  return { schema, outbox, folder: folderOfSchema(schema) };
}

/** Every schema with its migrations, once each, in the start order of its first service. */
export function serviceMigrations(): SchemaMigrations[] {
  const schemaOf = (name: ServiceName) => SCHEMAS[name].schema;
  const firsts = SERVICES.filter(
    (name, index) => SERVICES.findIndex((other) => schemaOf(other) === schemaOf(name)) === index,
  );
  return firsts.map(migrationsOf);
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
