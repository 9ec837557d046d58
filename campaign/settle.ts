import { setTimeout as sleep } from 'node:timers/promises';
import type postgres from 'postgres';

/**
 * Waits until the system has nothing left to do: every attempt decided, no refund owed or
 * unknown, every event published, every webhook delivered, and the status projection
 * caught up with payments. Answers how long that took, or null after `timeoutMs` (the
 * invariants then say what was left).
 */
export async function settle(sql: postgres.Sql, timeoutMs: number): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
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
    if (Number(row!.busy) === 0) return Date.now() - started;
    await sleep(1_000);
  }
  return null;
}
