import { readdir, readFile } from 'node:fs/promises';
import postgres from 'postgres';
import type { Logger } from './logger.ts';
import { tracedSql } from './traced-sql.ts';

export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;

/**
 * bigint columns hold centimes and counters, far below 2^53, so they come back as
 * plain numbers rather than strings.
 */
const centimesAsNumber = {
  to: 20,
  from: [20],
  serialize: (value: number) => String(value),
  parse: (value: string) => Number(value),
};

/**
 * A pool whose search_path is the service's own schema, so its queries name their
 * tables without a schema and can never read another service's tables by accident.
 */
export function connectPostgres(url: string, schema: string, max = 10): Sql {
  const sql = postgres(url, {
    max,
    // Fail fast when the database is unreachable: callers answer 503 instead of hanging.
    connect_timeout: 5,
    connection: { search_path: schema, application_name: `dzpay-${schema}` },
    onnotice: () => {},
    types: { bigint: centimesAsNumber },
  });
  return tracedSql(sql);
}

/**
 * Errors that say the database cannot be reached right now (refused, reset, timed
 * out, shutting down), as opposed to a bad query. Callers answer them as a 503-class
 * "retry later" instead of a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DATABASE_UNAVAILABLE_CODES.has(code);
}

const DATABASE_UNAVAILABLE_CODES = new Set([
  // postgres.js and the socket layer
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  // Postgres: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

const MIGRATION_FILE = /^\d{3}_[a-z0-9_]+\.sql$/;

/**
 * The outbox every publishing service keeps (sql/outbox.sql), written once here: applied
 * as its schema's first migration, by this name, wherever a service asks for an outbox.
 */
const OUTBOX_MIGRATION = {
  name: '000_outbox.sql',
  url: new URL('../sql/outbox.sql', import.meta.url),
};

export interface MigrateOptions {
  /** The schema keeps an outbox (outbox-relay.ts): the platform's table comes first. */
  outbox?: boolean;
}

/**
 * Applies the service's `migrations/NNN_name.sql` files that are not applied yet, in
 * order, in one transaction under a transaction-level advisory lock: replicas starting
 * together wait for each other, and a failing file leaves nothing half applied.
 */
export async function migrate(
  sql: Sql,
  schema: string,
  directory: URL,
  logger?: Logger,
  options: MigrateOptions = {},
): Promise<string[]> {
  const own = (await readdir(directory)).filter((name) => MIGRATION_FILE.test(name)).sort();
  const files = [
    ...(options.outbox ? [OUTBOX_MIGRATION] : []),
    ...own.map((name) => ({ name, url: new URL(name, directory) })),
  ];
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`dzpay:migrate:${schema}`}))`;
    await tx.unsafe(`create schema if not exists "${schema}"`);
    await tx.unsafe(
      `create table if not exists "${schema}".schema_migrations (
         name text primary key,
         applied_at timestamptz not null default now()
       )`,
    );
    const done = new Set(
      (await tx.unsafe<{ name: string }[]>(`select name from "${schema}".schema_migrations`)).map(
        (row) => row.name,
      ),
    );
    for (const file of files) {
      if (done.has(file.name)) continue;
      const text = await readFile(file.url, 'utf8');
      await tx.unsafe(`set local search_path to "${schema}"`);
      await tx.unsafe(text);
      await tx.unsafe(`insert into "${schema}".schema_migrations (name) values ($1)`, [file.name]);
      applied.push(file.name);
    }
  });
  if (applied.length > 0) logger?.info({ schema, applied }, 'migrations applied');
  return applied;
}
