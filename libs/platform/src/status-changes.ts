import { STATUS_CHANGED_CHANNEL, statusChangeOf, type StatusChange } from '@dzpay/contracts';
import type { Sql } from './db.ts';

/** What remembers statuses: told of each change to a reference, or to forget everything. */
export interface StatusForgetter {
  forget(changed: StatusChange): void;
  clear(): void;
}

/**
 * Forgets each reference whose attempts a commit changed, as Postgres notifies it
 * (status's trigger, STATUS_CHANGED_CHANNEL), with the attempt's revision the change
 * reached, so that no answer older than it is remembered afterwards; clears everything on
 * each (re)connection, since notifications sent while disconnected are lost, and on a
 * payload it cannot read. Resolves once listening.
 */
export async function onStatusChanges(sql: Sql, cache: StatusForgetter): Promise<void> {
  await sql.listen(
    STATUS_CHANGED_CHANNEL,
    (payload) => {
      const changed = statusChangeOf(payload);
      if (changed) cache.forget(changed);
      else cache.clear();
    },
    () => cache.clear(),
  );
}
