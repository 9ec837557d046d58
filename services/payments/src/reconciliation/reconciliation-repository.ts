import type { Mode } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import type { PaymentRecord } from '../domain/payment-record.ts';
import type { RefundIntent } from '../domain/refund-intent.ts';
import { toRecord, type Row } from '../store/payment-rows.ts';

/** The reconciliation's advisory lock: one replica reconciles at a time. */
export const RECONCILIATION_LOCK = 'dzpay:payments:reconciliation';

/** What the reconciliation reads of a refund intent. */
export type IntentSummary = Pick<RefundIntent, 'paymentId' | 'amount' | 'state'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What the reconciler reads and holds in Postgres: payments and their refund intents by
 * batch (one query per page of orders, never one per order), dzpay's paid payments of a
 * window, and the lock that keeps two replicas from reconciling at once.
 */
export function reconciliationRepository(sql: Sql) {
  return {
    /**
     * The mode's payments that own one of `orderIds`, or whose id is one of `paymentIds`
     * (the orders' udf1: an order the row does not name yet, or no longer).
     */
    async paymentsOf(
      mode: Mode,
      orderIds: readonly string[],
      paymentIds: readonly (string | null)[],
    ): Promise<PaymentRecord[]> {
      // udf1 is whatever was sent at registration: only a UUID can be one of ours.
      const ids = [...new Set(paymentIds.filter((id): id is string => !!id && UUID.test(id)))];
      if (orderIds.length === 0 && ids.length === 0) return [];
      const rows = await sql<Row[]>`
        select * from payments
        where mode = ${mode}
          and (${orderIds.length > 0 ? sql`cardnet_order_id in ${sql([...orderIds])}` : sql`false`}
            or ${ids.length > 0 ? sql`id in ${sql(ids)}` : sql`false`})`;
      return rows.map(toRecord);
    },

    /** The refund intents of these payments, by payment. */
    async intentsOf(paymentIds: readonly string[]): Promise<Map<string, IntentSummary[]>> {
      const byPayment = new Map<string, IntentSummary[]>();
      if (paymentIds.length === 0) return byPayment;
      const rows = await sql<
        { payment_id: string; amount: number; state: RefundIntent['state'] }[]
      >`
        select payment_id, amount, state from refunds
        where payment_id in ${sql([...new Set(paymentIds)])}`;
      for (const row of rows) {
        const list = byPayment.get(row.payment_id) ?? [];
        list.push({ paymentId: row.payment_id, amount: row.amount, state: row.state });
        byPayment.set(row.payment_id, list);
      }
      return byPayment;
    },

    /**
     * The mode's payments dzpay counts as paid, created in [since, until]: their ids and
     * orders only (one scan; those the network did not list are then read in full).
     */
    async paidBetween(
      mode: Mode,
      since: Date,
      until: Date,
    ): Promise<{ id: string; cardnetOrderId: string | null }[]> {
      const rows = await sql<{ id: string; cardnet_order_id: string | null }[]>`
        select id, cardnet_order_id from payments
        where mode = ${mode} and status in ('success', 'refunded')
          and created_at >= ${since} and created_at <= ${until}`;
      return rows.map((row) => ({ id: row.id, cardnetOrderId: row.cardnet_order_id }));
    },

    async paymentsById(ids: readonly string[]): Promise<PaymentRecord[]> {
      if (ids.length === 0) return [];
      const rows = await sql<Row[]>`select * from payments where id in ${sql([...ids])}`;
      return rows.map(toRecord);
    },

    /**
     * Takes the reconciliation lock on a connection of its own (a session lock: it is
     * let go when that connection ends, so a replica that dies frees it). Null when
     * another holds it.
     */
    async tryLock(): Promise<{ release(): Promise<void> } | null> {
      const reserved = await sql.reserve();
      try {
        const [row] = await reserved<{ locked: boolean }[]>`
          select pg_try_advisory_lock(hashtextextended(${RECONCILIATION_LOCK}, 0)) as locked`;
        if (!row?.locked) {
          reserved.release();
          return null;
        }
      } catch (error) {
        reserved.release();
        throw error;
      }
      return {
        async release() {
          try {
            await reserved`select pg_advisory_unlock(hashtextextended(${RECONCILIATION_LOCK}, 0))`;
          } finally {
            reserved.release();
          }
        },
      };
    },
  };
}

export type ReconciliationRepository = ReturnType<typeof reconciliationRepository>;
