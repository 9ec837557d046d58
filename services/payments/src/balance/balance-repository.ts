import { REPORT_TIME_ZONE, type MerchantScope } from '@dzpay/contracts';
import type { Tx } from '@dzpay/platform';
import type { Buckets, Sums } from './balance.ts';

export interface BalanceSums {
  buckets: Buckets;
  /** Merchant refunds asked of the card network and not decided yet (centimes). */
  openRefunds: number;
}

interface BucketRow {
  bucket: string;
  count: number;
  amount: number;
  fee: number;
}

/**
 * The balance's sums straight from the tables, each row put in its bucket against the
 * range: before `from` began, an Algiers day of the range, or after `to` ended. The
 * same rows as the daily report (report-repository.ts): successes by paid_at over the
 * index payments_report_paid, confirmed merchant refunds by confirmation over
 * refunds_report_confirmed; payouts by recorded_at (migration 016). One pass over the
 * merchant's history per table gives the range and overall together. Run in a
 * transaction, so every sum is of one snapshot (or, for a payout, under its lock).
 *
 * The merchant refunds still open are read by the same statement as the confirmed ones
 * (bucket 'open'): a payout reads in read committed, each statement its own snapshot,
 * and a refund confirmed between two statements would be in neither sum, leaving the
 * payout more than the balance. One statement sees every refund exactly once.
 */
export function balanceRepository() {
  const zone = REPORT_TIME_ZONE;

  async function read(
    sql: Tx,
    scope: MerchantScope,
    range: { from: string; to: string },
  ): Promise<BalanceSums> {
    const start = sql`(${range.from}::date)::timestamp at time zone ${zone}`;
    const end = sql`(${range.to}::date + 1)::timestamp at time zone ${zone}`;
    const bucketOf = (column: string) => sql`case
        when ${sql(column)} < ${start} then '<'
        when ${sql(column)} >= ${end} then '>'
        else to_char((${sql(column)} at time zone ${zone})::date, 'YYYY-MM-DD') end`;
    const [successes, refunds, payouts] = await Promise.all([
      sql<BucketRow[]>`
        select ${bucketOf('paid_at')} as bucket, count(*)::int as count,
               sum(total)::bigint as amount, sum(fee)::bigint as fee
        from payments
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          and paid_at is not null and status in ('success', 'refunded')
        group by 1`,
      // The two arms of the `or` are the partial indexes refunds_report_confirmed and
      // refunds_merchant_open (a bitmap or of both).
      sql<BucketRow[]>`
        select case when state = 'requested' then 'open' else ${bucketOf('updated_at')} end
                 as bucket,
               count(*)::int as count, sum(amount)::bigint as amount, 0 as fee
        from refunds
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          and reason = 'merchant' and (state = 'succeeded' or state = 'requested')
        group by 1`,
      sql<BucketRow[]>`
        select ${bucketOf('recorded_at')} as bucket, count(*)::int as count,
               sum(amount)::bigint as amount, 0 as fee
        from payouts
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
        group by 1`,
    ]);
    const result: Buckets = { before: {}, days: new Map(), after: {} };
    let openRefunds = 0;
    const into = (bucket: string): Sums => {
      if (bucket === '<') return result.before;
      if (bucket === '>') return result.after;
      let sums = result.days.get(bucket);
      if (!sums) result.days.set(bucket, (sums = {}));
      return sums;
    };
    for (const row of successes) {
      const sums = into(row.bucket);
      sums.capturedCount = row.count;
      sums.captured = Number(row.amount);
      sums.fees = Number(row.fee);
    }
    for (const row of refunds) {
      if (row.bucket === 'open') {
        openRefunds = Number(row.amount);
        continue;
      }
      const sums = into(row.bucket);
      sums.refundCount = row.count;
      sums.refunds = Number(row.amount);
    }
    for (const row of payouts) {
      const sums = into(row.bucket);
      sums.payoutCount = row.count;
      sums.paidOut = Number(row.amount);
    }
    return { buckets: result, openRefunds };
  }

  return { read };
}
