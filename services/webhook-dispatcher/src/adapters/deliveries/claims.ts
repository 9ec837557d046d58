import type { Sql } from '@dzpay/platform';
import {
  CLAIMED_COLUMNS,
  toClaimedDelivery,
  type ClaimedDelivery,
  type DeliveryRow,
} from './claimed-delivery.ts';

/** Due deliveries claimed for one attempt each, and handed back when it was not made. */
export function deliveryClaims(sql: Sql) {
  return {
    /**
     * Claims due deliveries for one attempt each, by moving their next_attempt_at past
     * the attempt's deadline (`leaseMs`): no other replica takes them meanwhile, and one
     * that dies mid-attempt hands them back when the lease ends. At most `slots(endpoint)`
     * per endpoint, oldest first, so an endpoint's backlog never crowds out the others.
     */
    async claimDue(options: {
      limit: number;
      perEndpoint: number;
      /** Attempts this replica has in flight, per endpointKey. */
      busy: Record<string, number>;
      leaseMs: number;
    }): Promise<ClaimedDelivery[]> {
      // The endpoints with pending deliveries, one index probe each (a loose index scan,
      // migration 007); then each one's oldest due, up to its free slots.
      const rows = await sql<DeliveryRow[]>`
        with recursive endpoints as (
          (select merchant_id, mode from deliveries
           where state = 'pending' order by merchant_id, mode limit 1)
          union all
          select next.merchant_id, next.mode from endpoints e cross join lateral (
            select d.merchant_id, d.mode from deliveries d
            where d.state = 'pending' and (d.merchant_id, d.mode) > (e.merchant_id, e.mode)
            order by d.merchant_id, d.mode limit 1) next
        ), picked as (
          select due.id from endpoints e cross join lateral (
            select id, next_attempt_at from deliveries
            where state = 'pending' and merchant_id = e.merchant_id and mode = e.mode
              and next_attempt_at <= now()
            order by next_attempt_at, id
            limit greatest(0, ${options.perEndpoint}::int
                   - coalesce((${sql.json(options.busy)}::jsonb
                               ->> (e.merchant_id::text || '.' || e.mode))::int, 0))) due
          order by due.next_attempt_at
          limit ${options.limit}::int
        ), locked as (
          select id from deliveries
          where id in (select id from picked) and state = 'pending' and next_attempt_at <= now()
          for update skip locked
        )
        update deliveries
        set next_attempt_at = now() + ${options.leaseMs}::int * interval '1 millisecond',
            updated_at = now()
        where id in (select id from locked)
        returning ${sql.unsafe(CLAIMED_COLUMNS)}`;
      return rows.map(toClaimedDelivery);
    },

    /** Hands a claimed delivery back, due now, when its attempt was abandoned unsent or unjudged (shutdown). */
    async release(delivery: ClaimedDelivery): Promise<void> {
      await sql`
        update deliveries set next_attempt_at = now(), updated_at = now()
        where id = ${delivery.id} and state = 'pending' and attempts = ${delivery.attempts}`;
    },
  };
}

export type DeliveryClaims = ReturnType<typeof deliveryClaims>;
