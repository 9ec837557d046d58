import postgres from 'postgres';

/** The reason /readyz gives while the database takes no commit. */
export const NOT_COMMITTING =
  'database not committing: no synchronous standby has taken the WAL (reads still answer)';

/**
 * Whether the database commits, for /readyz. On a synchronous primary whose standby is
 * gone (synchronous_standby_names set, no standby streaming), reads answer and every
 * COMMIT waits for a standby that is not there: `select 1` says all is well while no
 * payment can be written. The probe commits a transaction that writes WAL (a
 * transactional logical message: no table, any role may, at wal_level replica; a mere
 * `txid_current()` writes none, and Postgres does not wait for a standby on it) on a
 * connection of its own. A commit still waiting after `waitMs` is cancelled (Postgres
 * then warns that it committed locally only, and frees the backend: probes never pile up
 * on the server) and the check fails with NOT_COMMITTING.
 */
export function commitProbe(url: string, waitMs = 1_500) {
  const warnings: string[] = [];
  const sql = postgres(url, {
    max: 1,
    connect_timeout: 2,
    idle_timeout: 60,
    connection: { application_name: 'dzpay-commit-probe' },
    onnotice: (notice) => warnings.push(notice.message ?? ''),
  });
  return {
    async check(): Promise<void> {
      const from = warnings.length;
      const commit = sql`select pg_logical_emit_message(true, 'dzpay', 'commit-probe')`;
      const timer = setTimeout(() => commit.cancel(), waitMs);
      try {
        await commit;
      } finally {
        clearTimeout(timer);
      }
      if (warnings.slice(from).some((text) => /synchronous replication/i.test(text))) {
        throw new Error(NOT_COMMITTING);
      }
    },
    close: () => sql.end({ timeout: 1 }),
  };
}
