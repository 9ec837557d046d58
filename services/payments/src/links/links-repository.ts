import type { MerchantScope, PaymentStatus } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import { heldUntilOf, type LinkHolder, type PaymentLinkRecord } from './link-rules.ts';
import type { ListCursor } from '../domain/payments-cursor.ts';

type Row = Record<string, unknown>;

/** A link with what its payments add: the holder of a single-use link, and the counts. */
export interface LinkWithUse {
  link: PaymentLinkRecord;
  holder: LinkHolder | null;
  paidCount: number;
  paidAmount: number;
}

export type NewPaymentLink = Omit<PaymentLinkRecord, 'opened' | 'deactivatedAt' | 'updatedAt'>;

function toLink(row: Row): PaymentLinkRecord {
  const centimes = (value: unknown) => (value === null ? null : Number(value));
  return {
    id: row.id as string,
    merchantId: row.merchant_id as string,
    mode: row.mode as PaymentLinkRecord['mode'],
    token: row.token as string,
    label: row.label as string,
    amount: centimes(row.amount),
    minAmount: centimes(row.min_amount),
    maxAmount: centimes(row.max_amount),
    singleUse: row.single_use as boolean,
    expiresAt: (row.expires_at as Date | null) ?? null,
    language: row.language as PaymentLinkRecord['language'],
    metadata: (row.metadata as Record<string, unknown> | null) ?? null,
    opened: Number(row.opened),
    deactivatedAt: (row.deactivated_at as Date | null) ?? null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

function holderOf(row: Row, pressHoldMs: number): LinkHolder | null {
  if (!row.holder_status) return null;
  const expiresAt = row.holder_expires_at as Date;
  const heldUntil = heldUntilOf(
    {
      createdAt: row.holder_created_at as Date,
      expiresAt,
      cardOrderPlaced: row.holder_order_placed as boolean,
    },
    pressHoldMs,
  );
  return {
    paymentId: row.holder_id as string,
    status: row.holder_status as PaymentStatus,
    expiresAt,
    heldUntil,
  };
}

function toLinkWithUse(row: Row, pressHoldMs: number): LinkWithUse {
  return {
    link: toLink(row),
    holder: holderOf(row, pressHoldMs),
    paidCount: Number(row.paid_count ?? 0),
    paidAmount: Number(row.paid_amount ?? 0),
  };
}

/**
 * The payment_links table, read with what its payments say: the one payment that
 * holds a single-use link (the payments_one_link_sale index) and until when, and the
 * paid count and sum.
 */
export function paymentLinksRepository(sql: Sql, pressHoldMs: number) {
  const withUse = (row: Row) => toLinkWithUse(row, pressHoldMs);
  /** The columns every read adds to `l.*` (a page is at most 100 links: one lateral each). */
  const use = sql`
    holder.id as holder_id, holder.status as holder_status, holder.expires_at as holder_expires_at,
    holder.created_at as holder_created_at, holder.order_placed as holder_order_placed,
    paid.paid_count, paid.paid_amount,
    (floor(extract(epoch from date_trunc('second', l.created_at)))::bigint * 1000000
      + extract(microseconds from l.created_at)::bigint % 1000000)::text as created_micros`;
  const joins = sql`
    left join lateral (
      select p.id, p.status, p.expires_at, p.created_at,
        p.cardnet_order_id is not null as order_placed
      from payments p
      where p.payment_link_id = l.id and p.payment_link_once
        and p.status in ('pending', 'processing', 'success', 'refunded')
      limit 1) holder on true
    left join lateral (
      select count(*) as paid_count, coalesce(sum(p.amount), 0) as paid_amount from payments p
      where p.payment_link_id = l.id and p.status in ('success', 'refunded')) paid on true`;

  return {
    async insert(link: NewPaymentLink): Promise<PaymentLinkRecord> {
      const [row] = await sql<Row[]>`
        insert into payment_links (id, merchant_id, mode, token, label, amount, min_amount,
          max_amount, single_use, expires_at, language, metadata, created_at, updated_at)
        values (${link.id}, ${link.merchantId}, ${link.mode}, ${link.token}, ${link.label},
          ${link.amount}, ${link.minAmount}, ${link.maxAmount}, ${link.singleUse},
          ${link.expiresAt}, ${link.language},
          ${link.metadata ? sql.json(link.metadata as never) : null},
          ${link.createdAt}, ${link.createdAt})
        returning *`;
      return toLink(row!);
    },

    async findForMerchant(scope: MerchantScope, id: string): Promise<LinkWithUse | null> {
      const [row] = await sql<Row[]>`
        select l.*, ${use} from payment_links l ${joins}
        where l.id = ${id} and l.merchant_id = ${scope.merchantId} and l.mode = ${scope.mode}`;
      return row ? withUse(row) : null;
    },

    async findByToken(token: string): Promise<LinkWithUse | null> {
      const [row] = await sql<Row[]>`
        select l.*, ${use} from payment_links l ${joins} where l.token = ${token}`;
      return row ? withUse(row) : null;
    },

    /** The merchant's links, newest first, after the cursor; one more than `limit` tells a next page. */
    async list(
      scope: MerchantScope,
      after: ListCursor | null,
      limit: number,
    ): Promise<(LinkWithUse & { cursor: ListCursor })[]> {
      const rows = await sql<Row[]>`
        select l.*, ${use} from payment_links l ${joins}
        where l.merchant_id = ${scope.merchantId} and l.mode = ${scope.mode}
          ${after ? sql`and (l.created_at, l.id) < (timestamptz 'epoch' + ${after.createdMicros}::bigint * interval '1 microsecond', ${after.id}::uuid)` : sql``}
        order by l.created_at desc, l.id desc
        limit ${limit}`;
      return rows.map((row) => ({
        ...withUse(row),
        cursor: { createdMicros: row.created_micros as string, id: row.id as string },
      }));
    },

    /** Deactivates the link (once: a second call keeps the first time); null when it is not the merchant's. */
    /** `already` when it was deactivated before (nothing changes then), `missing` when not the scope's. */
    async deactivate(
      scope: MerchantScope,
      id: string,
      at: Date,
    ): Promise<'deactivated' | 'already' | 'missing'> {
      const rows = await sql<{ already: boolean }[]>`
        with before as (
          select id, deactivated_at is not null as already from payment_links
          where id = ${id} and merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          for update
        )
        update payment_links p
        set deactivated_at = coalesce(p.deactivated_at, ${at}),
            updated_at = case when before.already then p.updated_at else ${at} end
        from before where p.id = before.id
        returning before.already`;
      if (rows.length === 0) return 'missing';
      return rows[0]!.already ? 'already' : 'deactivated';
    },

    /**
     * The number of the link's next payment (1, 2, …), its reference made of it; null
     * when the link was deactivated or expired meanwhile (no number is used up then).
     */
    async nextNumber(id: string, now: Date): Promise<number | null> {
      const [row] = await sql<{ opened: string }[]>`
        update payment_links set opened = opened + 1
        where id = ${id} and deactivated_at is null and (expires_at is null or expires_at > ${now})
        returning opened`;
      return row ? Number(row.opened) : null;
    },
  };
}

export type PaymentLinksRepository = ReturnType<typeof paymentLinksRepository>;
