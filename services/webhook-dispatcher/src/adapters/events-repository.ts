import type {
  MerchantScope,
  WebhookEventsPage,
  WebhookEventView,
  WebhookType,
} from '@dzpay/contracts';
import { AppError, type Sql } from '@dzpay/platform';
import { isUuid } from '../domain/uuid.ts';
import { dataOf } from '../domain/webhook-body.ts';

interface EventRow {
  id: string;
  type: WebhookType;
  created_at: Date;
  payment_id: string | null;
  body: string;
  delivery_id: string | null;
  state: 'pending' | 'success' | 'fail' | null;
  attempts: number | null;
  last_status_code: number | null;
}

// Each event with its delivery (at most one: deliveries are unique by event) and the
// status code of the delivery's latest attempt.
const EVENT_SELECT = `
  select e.id, e.type, e.created_at, e.payment_id, e.body, d.id as delivery_id, d.state,
         d.attempts,
         (select a.status_code from delivery_attempts a where a.delivery_id = d.id
          order by a.number desc limit 1) as last_status_code
  from events e left join deliveries d on d.event_id = e.id`;

function toView(row: EventRow): WebhookEventView {
  return {
    id: row.id,
    type: row.type,
    createdAt: row.created_at.toISOString(),
    paymentId: row.payment_id,
    data: dataOf(row.body),
    delivery:
      row.delivery_id === null
        ? null
        : {
            id: row.delivery_id,
            status: row.state!,
            attempts: row.attempts!,
            lastStatusCode: row.last_status_code,
          },
  };
}

/**
 * The list's cursor: the last event's (createdAt, id), opaque to merchants. Events are
 * stored to the millisecond, so the ISO time names its position exactly.
 */
function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(`${row.created_at.toISOString()}|${row.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || !isUuid(id) || Number.isNaN(createdAt.getTime())) {
    throw new AppError('VALIDATION400_BAD_REQUEST', 'cursor is not one this API gave', {
      details: {
        failures: [{ field: 'cursor', message: 'use the nextCursor of a previous page' }],
      },
    });
  }
  return { createdAt, id };
}

/** The events the dispatcher took in, as merchants list and replay them. */
export function eventsRepository(sql: Sql) {
  return {
    /**
     * One page of the merchant's events, newest first (created_at, then id, both
     * descending: a keyset that new events never shift), after `cursor` if given.
     */
    async list(
      scope: MerchantScope,
      query: { limit: number; cursor?: string; type?: WebhookType; paymentId?: string },
    ): Promise<WebhookEventsPage> {
      const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
      const rows = await sql<EventRow[]>`
        ${sql.unsafe(EVENT_SELECT)}
        where e.merchant_id = ${scope.merchantId} and e.mode = ${scope.mode}
          ${query.type ? sql`and e.type = ${query.type}` : sql``}
          ${query.paymentId ? sql`and e.payment_id = ${query.paymentId}` : sql``}
          ${after ? sql`and (e.created_at, e.id) < (${after.createdAt}, ${after.id})` : sql``}
        order by e.created_at desc, e.id desc
        limit ${query.limit + 1}`;
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        events: page.map(toView),
        nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null,
      };
    },

    /** One event of the merchant's, or null (another merchant's, or not an id at all). */
    async find(scope: MerchantScope, eventId: string): Promise<WebhookEventView | null> {
      if (!isUuid(eventId)) return null;
      const [row] = await sql<EventRow[]>`
        ${sql.unsafe(EVENT_SELECT)}
        where e.id = ${eventId} and e.merchant_id = ${scope.merchantId} and e.mode = ${scope.mode}`;
      return row ? toView(row) : null;
    },

    /**
     * Events without a delivery (kinds the endpoint did not want) older than `keepMs`, at
     * most `limit`; events with one go when their delivery is pruned.
     */
    async pruneUndelivered(keepMs: number, limit: number): Promise<number> {
      const rows = await sql`
        delete from events where id in (
          select e.id from events e
          where e.created_at < now() - ${keepMs} * interval '1 millisecond'
            and not exists (select 1 from deliveries d where d.event_id = e.id)
          order by e.created_at
          limit ${limit})
        returning id`;
      return rows.length;
    },
  };
}

export type EventsRepository = ReturnType<typeof eventsRepository>;
