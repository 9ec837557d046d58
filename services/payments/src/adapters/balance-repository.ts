import { REPORT_TIME_ZONE, type MerchantScope } from '@dzpay/contracts';
import type { Tx } from '@dzpay/platform';
import type { Buckets, Sums } from '../domain/balance.ts';

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
 */
export function balanceRepository() {
  const zone = REPORT_TIME_ZONE;

  async function buckets(
    sql: Tx,
    scope: MerchantScope,
    range: { from: string; to: string },
  ): Promise<Buckets> {
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
      sql<BucketRow[]>`
        select ${bucketOf('updated_at')} as bucket, count(*)::int as count,
               sum(amount)::bigint as amount, 0 as fee
        from refunds
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          and state = 'succeeded' and reason = 'merchant'
        group by 1`,
      sql<BucketRow[]>`
        select ${bucketOf('recorded_at')} as bucket, count(*)::int as count,
               sum(amount)::bigint as amount, 0 as fee
        from payouts
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
        group by 1`,
    ]);
    const result: Buckets = { before: {}, days: new Map(), after: {} };
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
      const sums = into(row.bucket);
      sums.refundCount = row.count;
      sums.refunds = Number(row.amount);
    }
    for (const row of payouts) {
      const sums = into(row.bucket);
      sums.payoutCount = row.count;
      sums.paidOut = Number(row.amount);
    }
    return result;
  }

  /** Merchant refunds asked of the card network and not decided yet. */
  async function pendingRefunds(sql: Tx, scope: MerchantScope): Promise<number> {
    const [row] = await sql<{ amount: number }[]>`
      select coalesce(sum(amount), 0)::bigint as amount from refunds
      where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
        and state = 'requested' and reason = 'merchant'`;
    return Number(row?.amount ?? 0);
  }

  return { buckets, pendingRefunds };
}
