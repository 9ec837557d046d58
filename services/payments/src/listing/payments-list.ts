import type { PaymentsListRequest } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import { likePrefix, prefixUpperBound, storedStatusOf } from './list-filter.ts';
import type { ListCursor } from '../domain/payments-cursor.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { toRecord, type Row } from '../store/payment-rows.ts';

export type ListFilter = Omit<PaymentsListRequest, 'merchantId' | 'mode' | 'limit' | 'cursor'>;

/** A payment of a page and where the next page starts after it. */
export interface Listed {
  record: PaymentRecord;
  cursor: ListCursor;
}

/**
 * The merchant's payments, newest first: `created_at desc, id desc`, after the cursor
 * by keyset (`(created_at, id) < cursor`), so a page costs the same at any depth and
 * payments created meanwhile never shift the pages after the first. Every filter is a
 * condition an index of migration 008 can serve.
 */
export function paymentsList(sql: Sql) {
  return async function list(
    scope: { merchantId: string; mode: string },
    filter: ListFilter,
    after: ListCursor | null,
    limit: number,
  ): Promise<Listed[]> {
    const rows = await sql<(Row & { created_micros: string })[]>`
      select *,
        (floor(extract(epoch from date_trunc('second', created_at)))::bigint * 1000000
          + extract(microseconds from created_at)::bigint % 1000000)::text as created_micros
      from payments
      where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
        ${after ? sql`and (created_at, id) < (timestamptz 'epoch' + ${after.createdMicros}::bigint * interval '1 microsecond', ${after.id}::uuid)` : sql``}
        ${statusCondition(sql, filter)}
        ${filter.channel ? sql`and channel = ${filter.channel}` : sql``}
        ${filter.paymentLinkId ? sql`and payment_link_id = ${filter.paymentLinkId}` : sql``}
        ${filter.reference !== undefined ? sql`and reference = ${filter.reference}` : sql``}
        ${filter.referencePrefix !== undefined ? prefixCondition(sql, filter.referencePrefix) : sql``}
        ${filter.createdFrom ? sql`and created_at >= ${filter.createdFrom}::timestamptz` : sql``}
        ${filter.createdTo ? sql`and created_at < ${filter.createdTo}::timestamptz` : sql``}
        ${
          filter.metadataKey !== undefined && filter.metadataValue !== undefined
            ? sql`and metadata @> ${sql.json({ [filter.metadataKey]: filter.metadataValue })}`
            : sql``
        }
      order by created_at desc, id desc
      limit ${limit}`;
    return rows.map((row) => ({
      record: toRecord(row),
      cursor: { createdMicros: row.created_micros, id: row.id as string },
    }));
  };
}

function statusCondition(sql: Sql, filter: ListFilter) {
  if (!filter.status) return sql``;
  const stored = storedStatusOf(filter.status);
  if (stored.reason === 'any') return sql`and status = ${stored.status}`;
  if ('is' in stored.reason)
    return sql`and status = ${stored.status} and failure_reason = ${stored.reason.is}`;
  return sql`and status = ${stored.status}
    and (failure_reason is null or failure_reason not in ${sql(stored.reason.notIn)})`;
}

/** A byte-wise index range, and LIKE (wildcards escaped) as the exact test. */
function prefixCondition(sql: Sql, prefix: string) {
  const upper = prefixUpperBound(prefix);
  return sql`and reference ~>=~ ${prefix}
    ${upper === null ? sql`` : sql`and reference ~<~ ${upper}`}
    and reference like ${likePrefix(prefix)}`;
}
