import { setTimeout as sleep } from 'node:timers/promises';
import type postgres from 'postgres';

/**
 * Waits until the system has nothing left to do: every attempt decided, no refund owed or
 * unknown, every event published, every webhook delivered, and the status projection
 * caught up with payments, and `caughtUp` (every stream consumer has read every event).
 * Answers how long that took, or null after `timeoutMs` (the invariants then say what
 * was left).
 */
export async function settle(
  sql: postgres.Sql,
  timeoutMs: number,
  caughtUp: () => Promise<boolean> = () => Promise.resolve(true),
): Promise<number | null> {
  const started = Date.now();
  // Quiet twice in a row, a second apart: an event published between the two looks
  // (the consumers', then the rows') shows at the next.
  let quiet = 0;
  while (Date.now() - started < timeoutMs) {
    // Asked first: an event read after the rows were counted would go unseen.
    const read = await caughtUp().catch(() => false);
    const [row] = await sql<{ busy: number }[]>`
      select
        (select count(*) from payments.payments
          where status in ('pending', 'processing') or refund_due)
      + (select count(*) from payments.refunds where state = 'requested')
      + (select count(*) from payments.outbox where published_at is null)
      + (select count(*) from webhooks.outbox where published_at is null)
      + (select count(*) from webhooks.deliveries where state = 'pending')
      + (select count(*) from payments.payments p
          left join status.attempts a on a.payment_id = p.id
          where p.reference_kind = 'product'
            and (a.payment_id is null or a.status <> p.status
                 or (p.status in ('success', 'failed')
                     and a.webhook_delivery is distinct from 'success')))
      as busy`.catch(() => [{ busy: 1 }]);
    quiet = read && Number(row!.busy) === 0 ? quiet + 1 : 0;
    if (quiet === 2) return Date.now() - started;
    await sleep(1_000);
  }
  return null;
}
