import postgres from 'postgres';

// Deliberately free of vitest: a fault campaign makes and drops databases from a plain
// `node` CLI, on the machine's shared Postgres, so it must only ever touch its own.

/** Databases no test may drop or cut off: the server's own and everyone's admin entry. */
const PROTECTED = new Set(['postgres', 'template0', 'template1']);

/** Creates the database and answers its URL (the admin URL with this database). */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  await withAdmin(adminUrl, (sql) => sql`create database ${sql(name)}`);
  return databaseUrl(adminUrl, name);
}

/** Drops the database if it exists, even while clients are still connected. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  refuseShared(adminUrl, name);
  await withAdmin(adminUrl, (sql) => sql`drop database if exists ${sql(name)} with (force)`);
}

/**
 * Terminates the client connections to the database (only those whose application_name
 * starts with the prefix, when given), never the one asking; answers how many ended.
 * Waits until each backend is really gone, so the next query on a killed connection fails.
 */
export async function terminateBackends(
  adminUrl: string,
  database: string,
  options: { applicationNamePrefix?: string } = {},
): Promise<number> {
  refuseShared(adminUrl, database);
  const prefix = options.applicationNamePrefix ?? null;
  const rows = await withAdmin(
    adminUrl,
    (sql) => sql<{ terminated: boolean }[]>`
      select pg_terminate_backend(pid, 5000) as terminated
      from pg_stat_activity
      where datname = ${database}
        and pid <> pg_backend_pid()
        and backend_type = 'client backend'
        and (${prefix}::text is null or starts_with(application_name, ${prefix}::text))`,
  );
  return rows.filter((row) => row.terminated).length;
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.href;
}

function refuseShared(adminUrl: string, name: string): void {
  const adminDatabase = decodeURIComponent(new URL(adminUrl).pathname.slice(1));
  if (PROTECTED.has(name) || name === adminDatabase) {
    throw new Error(`refusing to touch the shared database "${name}"`);
  }
}

async function withAdmin<T>(adminUrl: string, use: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(adminUrl, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: 'dzpay-testkit-admin' },
  });
  try {
    return await use(sql);
  } finally {
    await sql.end();
  }
}
