import { addDays, type MerchantScope, type Rpc } from '@dzpay/contracts';
import { AppError, type Sql } from '@dzpay/platform';
import type { z } from 'zod';
import { isUuid } from '../../domain/uuid.ts';
import { viewsOf, VIEW_COLUMNS, type ViewRow } from './views.ts';

type ListRequest = z.infer<typeof Rpc.webhookDeliveriesList.request>;
type ListQuery = Omit<ListRequest, keyof MerchantScope>;
type DeliveriesPage = z.infer<typeof Rpc.webhookDeliveriesList.reply>;

/** One page when the query names no limit. */
const DEFAULT_LIMIT = 20;

/** The delivery state each outcome of the query is. */
const STATE_OF_OUTCOME = {
  delivered: 'success',
  failing: 'pending',
  given_up: 'fail',
} as const satisfies Record<NonNullable<ListQuery['outcome']>, ViewRow['state']>;

/** Algiers is UTC+01:00 all year: its day D starts at D T00:00+01:00. */
const algiersMidnight = (day: string) => new Date(`${day}T00:00:00+01:00`);

/** created_at to the microsecond, as the cursor carries it (a Date keeps milliseconds). */
const CURSOR_AT = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const CURSOR_AT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function invalid(field: string, message: string): AppError {
  return new AppError('VALIDATION400_BAD_REQUEST', message, {
    details: { failures: [{ field, message }] },
  });
}

/** The list's cursor: the last delivery's (created_at, id), opaque to merchants. */
function encodeCursor(row: { cursor_at: string; id: string }): string {
  return Buffer.from(`${row.cursor_at}|${row.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { at: string; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!at || !id || !CURSOR_AT_PATTERN.test(at) || !isUuid(id))
    throw invalid('cursor', 'cursor is not one this API gave: use the nextCursor of a page');
  return { at, id };
}

/**
 * Every delivery of the merchant's webhooks in one mode, newest first (created_at, then
 * id, both descending: a keyset new deliveries never shift), filtered by outcome, event
 * type, payment and a range of Algiers days (both included); each with all its attempts.
 */
export function deliveriesListing(sql: Sql) {
  return {
    async list(scope: MerchantScope, query: ListQuery): Promise<DeliveriesPage> {
      if (query.from && query.to && query.from > query.to)
        throw invalid('to', 'to must not be before from');
      const limit = query.limit ?? DEFAULT_LIMIT;
      const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
      const rows = await sql<(ViewRow & { cursor_at: string })[]>`
        select ${sql.unsafe(VIEW_COLUMNS)}, ${sql.unsafe(CURSOR_AT)} as cursor_at
        from deliveries
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          ${query.outcome ? sql`and state = ${STATE_OF_OUTCOME[query.outcome]}` : sql``}
          ${query.type ? sql`and event_type = ${query.type}` : sql``}
          ${query.paymentId ? sql`and payment_id = ${query.paymentId}` : sql``}
          ${query.from ? sql`and created_at >= ${algiersMidnight(query.from)}` : sql``}
          ${query.to ? sql`and created_at < ${algiersMidnight(addDays(query.to, 1))}` : sql``}
          ${after ? sql`and (created_at, id) < (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
        order by created_at desc, id desc
        limit ${limit + 1}`;
      const page = rows.slice(0, limit);
      const views = await viewsOf(sql, page);
      const last = page.at(-1);
      return {
        // A test event's delivery has no payment: said as null here, not as ''.
        deliveries: views.map((view, index) => ({
          ...view,
          paymentId: page[index]!.payment_id,
          reference: page[index]!.reference,
        })),
        nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
      };
    },
  };
}

export type DeliveriesListing = ReturnType<typeof deliveriesListing>;
