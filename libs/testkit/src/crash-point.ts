import postgres from 'postgres';

/** A write of the payments schema that the next process to make it waits at, to die there. */
export interface CrashPoint {
  /** Resolves once a backend of the process waits at the point (the write not done). */
  reached(timeoutMs?: number): Promise<void>;
  /**
   * Kills the process (`kill`: SIGKILL, resolving once it is gone) while it waits there,
   * ends its waiting backend (Postgres would otherwise finish the statement once let go:
   * its client is gone only at the reply), and removes the point. What the process
   * committed before stays; the write never is.
   */
  crash(kill: () => Promise<void>): Promise<void>;
  /** Removes the point without crashing anything (a test that failed before `crash`). */
  remove(): Promise<void>;
}

/** An arbitrary advisory lock key, in this test database only (locks are per database). */
const LOCK = 7_114_022;

/**
 * Makes the payments process stop at an exact point: the first write to `table` whose
 * row matches `when` (a trigger condition over OLD and NEW) waits on an advisory lock the
 * test holds. A real crash at that point, then: the process is killed while its earlier
 * transactions are committed and that write is not.
 */
export async function crashPoint(
  databaseUrl: string,
  point: { table: 'idempotency_keys' | 'payments'; when: string },
): Promise<CrashPoint> {
  const db = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  // The lock lives on one connection of its own, held until the point is removed.
  const holder = await db.reserve();
  await holder`select pg_advisory_lock(${LOCK})`;
  await db.unsafe(`
    create or replace function payments.crash_point_wait() returns trigger
    language plpgsql as $$
    begin
      perform pg_advisory_xact_lock(${LOCK});
      return new;
    end;
    $$`);
  await db.unsafe(`
    create trigger crash_point before update on payments.${point.table}
    for each row when (${point.when}) execute function payments.crash_point_wait()`);

  const waiting = async () =>
    (
      await db<{ pid: number }[]>`
        select pid from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'
          and wait_event = 'advisory' and pid <> pg_backend_pid()`
    ).map((row) => row.pid);

  let removed = false;
  async function remove() {
    if (removed) return;
    removed = true;
    await db.unsafe(`drop trigger if exists crash_point on payments.${point.table}`);
    await holder`select pg_advisory_unlock(${LOCK})`;
    holder.release();
    await db.end();
  }

  return {
    async reached(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while ((await waiting()).length === 0) {
        if (Date.now() > deadline)
          throw new Error(`the crash point on ${point.table} was not reached`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async crash(kill) {
      const pids = await waiting();
      await kill();
      for (const pid of pids) await db`select pg_terminate_backend(${pid})`;
      while ((await waiting()).length > 0) await new Promise((resolve) => setTimeout(resolve, 25));
      await remove();
    },
    remove,
  };
}
