import { REPORT_TIME_ZONE, type MerchantScope } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import type { RefundDay, SuccessDay } from './daily-report.ts';

/**
 * The daily report's sums, per calendar day in Algiers. The bounds are the instants
 * Algiers' days start (`date::timestamp at time zone 'Africa/Algiers'`), so each query
 * walks a range of an index of migration 009; grouping turns each instant back into
 * its Algiers day.
 */
export function reportRepository(sql: Sql) {
  const zone = REPORT_TIME_ZONE;
  return {
    /** Successes by paid_at (a payment refunded since still succeeded that day). */
    async successes(scope: MerchantScope, from: string, to: string): Promise<SuccessDay[]> {
      return sql<SuccessDay[]>`
        select to_char((paid_at at time zone ${zone})::date, 'YYYY-MM-DD') as day,
               count(*)::int as count, sum(total)::bigint as amount, sum(fee)::bigint as fee
        from payments
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          and paid_at is not null and status in ('success', 'refunded')
          and paid_at >= (${from}::date)::timestamp at time zone ${zone}
          and paid_at < (${to}::date + 1)::timestamp at time zone ${zone}
        group by 1`;
    },

    /**
     * The merchant's refunds the card network confirmed, by when they were confirmed (a
     * confirmed intent is never touched again, so its updated_at is that moment). Money
     * dzpay returned on its own (late or refused payments, never counted as successes)
     * is not the merchant's refund and is left out.
     */
    async refunds(scope: MerchantScope, from: string, to: string): Promise<RefundDay[]> {
      return sql<RefundDay[]>`
        select to_char((updated_at at time zone ${zone})::date, 'YYYY-MM-DD') as day,
               count(*)::int as count, sum(amount)::bigint as amount
        from refunds
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          and state = 'succeeded' and reason = 'merchant'
          and updated_at >= (${from}::date)::timestamp at time zone ${zone}
          and updated_at < (${to}::date + 1)::timestamp at time zone ${zone}
        group by 1`;
    },
  };
}
