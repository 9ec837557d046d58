import { readdir, readFile } from 'node:fs/promises';
import postgres from 'postgres';
import type { Logger } from './logger.ts';

export type Sql = postgres.Sql;

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
  return postgres(url, {
    max,
    connection: { search_path: schema, application_name: `dzpay-${schema}` },
    onnotice: () => {},
    types: { bigint: centimesAsNumber },
  });
}

const MIGRATION_FILE = /^\d{3}_[a-z0-9_]+\.sql$/;

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
): Promise<string[]> {
  const files = (await readdir(directory)).filter((name) => MIGRATION_FILE.test(name)).sort();
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
      if (done.has(file)) continue;
      const text = await readFile(new URL(file, directory), 'utf8');
      await tx.unsafe(`set local search_path to "${schema}"`);
      await tx.unsafe(text);
      await tx.unsafe(`insert into "${schema}".schema_migrations (name) values ($1)`, [file]);
      applied.push(file);
    }
  });
  if (applied.length > 0) logger?.info({ schema, applied }, 'migrations applied');
  return applied;
}
