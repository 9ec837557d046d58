import { randomUUID } from 'node:crypto';
import type { MerchantScope, PayoutRecordRequest } from '@dzpay/contracts';
import type { Sql, Tx } from '@dzpay/platform';
import type { ListCursor } from '../domain/payments-cursor.ts';
import type { PayoutRecord } from './payout.ts';

interface PayoutRow {
  id: string;
  merchant_id: string;
  mode: 'test' | 'live';
  amount: number;
  wallet: string;
  reference: string;
  recorded_by: string;
  recorded_at: Date;
  recorded_micros: string;
}

const COLUMNS = (sql: Sql | Tx) => sql`id, merchant_id, mode, amount, wallet, reference,
  recorded_by, recorded_at,
  (floor(extract(epoch from date_trunc('second', recorded_at)))::bigint * 1000000
    + extract(microseconds from recorded_at)::bigint % 1000000)::text as recorded_micros`;

function recordOf(row: PayoutRow): PayoutRecord & { cursor: ListCursor } {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: row.mode,
    amount: Number(row.amount),
    wallet: row.wallet,
    reference: row.reference,
    recordedBy: row.recorded_by,
    recordedAt: row.recorded_at.toISOString(),
    cursor: { createdMicros: row.recorded_micros, id: row.id },
  };
}

/** The payouts table (migration 016): appended to under the merchant and mode's lock. */
export function payoutRepository(sql: Sql) {
  return {
    /**
     * Takes the merchant and mode's payout lock until the transaction ends: two records
     * for one merchant and mode run one after the other, each seeing the balance the
     * other left (the sums are read after the lock, in read committed: they see every
     * commit made before it was granted).
     */
    async lock(tx: Tx, scope: MerchantScope): Promise<void> {
      await tx`select pg_advisory_xact_lock(
        hashtextextended(${`dzpay:payouts:${scope.merchantId}:${scope.mode}`}, 0))`;
    },

    /**
     * The payout a bank reference recorded in a mode, whichever merchant's, whatever the
     * case it was typed in: the expression of the unique index payouts_reference.
     */
    async byReference(tx: Tx, mode: string, reference: string): Promise<PayoutRecord | null> {
      const [row] = await tx<PayoutRow[]>`
        select ${COLUMNS(tx)} from payouts
        where mode = ${mode} and upper(reference) = upper(${reference})`;
      return row ? recordOf(row) : null;
    },

    /**
     * Records a payout; called under lock(). recorded_at is clock_timestamp(), the time
     * of this insert (after the lock was granted), not now(), the transaction's start.
     */
    async insert(tx: Tx, request: PayoutRecordRequest): Promise<PayoutRecord> {
      const [row] = await tx<PayoutRow[]>`
        insert into payouts (id, merchant_id, mode, amount, wallet, reference, recorded_by,
                             recorded_at)
        values (${randomUUID()}, ${request.merchantId}, ${request.mode}, ${request.amount},
                ${request.wallet}, ${request.reference}, ${request.operator}, clock_timestamp())
        returning ${COLUMNS(tx)}`;
      return recordOf(row!);
    },

    /** Newest first, after the cursor by keyset (microseconds, as the payments list). */
    async page(scope: MerchantScope, after: ListCursor | null, limit: number) {
      const rows = await sql<PayoutRow[]>`
        select ${COLUMNS(sql)} from payouts
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          ${after ? sql`and (recorded_at, id) < (timestamptz 'epoch' + ${after.createdMicros}::bigint * interval '1 microsecond', ${after.id}::uuid)` : sql``}
        order by recorded_at desc, id desc
        limit ${limit}`;
      return rows.map(recordOf);
    },

    /** The payouts recorded in Algiers days from..to, oldest first (a statement's). */
    async between(tx: Tx, scope: MerchantScope, from: string, to: string, zone: string) {
      const rows = await tx<PayoutRow[]>`
        select ${COLUMNS(tx)} from payouts
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          and recorded_at >= (${from}::date)::timestamp at time zone ${zone}
          and recorded_at < (${to}::date + 1)::timestamp at time zone ${zone}
        order by recorded_at, id`;
      return rows.map(recordOf);
    },
  };
}
