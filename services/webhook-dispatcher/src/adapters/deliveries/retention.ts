import type { Sql } from '@dzpay/platform';

/**
 * Finished deliveries (and their attempts) last changed more than `keepMs` ago, at
 * most `limit` of them. A delivery also makes a redelivered outcome change nothing,
 * so `keepMs` (DEDUP_RETENTION_MS) exceeds how long PAYMENTS keeps an event.
 */
export async function pruneFinishedDeliveries(
  sql: Sql,
  keepMs: number,
  limit: number,
): Promise<number> {
  return sql.begin(async (tx) => {
    const ids = (
      await tx<{ id: string }[]>`
        select id from deliveries
        where state <> 'pending' and updated_at < now() - ${keepMs} * interval '1 millisecond'
        order by updated_at
        limit ${limit}
        for update skip locked`
    ).map((row) => row.id);
    if (ids.length === 0) return 0;
    await tx`delete from delivery_attempts where delivery_id in ${tx(ids)}`;
    const events = await tx<{ event_id: string }[]>`
      delete from deliveries where id in ${tx(ids)} returning event_id`;
    // Their events go with them (an event without a delivery is pruned by pruneUndelivered).
    await tx`delete from events where id in ${tx(events.map((row) => row.event_id))}`;
    return ids.length;
  });
}
