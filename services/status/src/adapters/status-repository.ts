import { WebhookDelivery, type MerchantScope } from '@dzpay/contracts';
import type { Sql, Tx } from '@dzpay/platform';
import type { AttemptUpdate } from '../domain/attempt-event.ts';
import type { Attempt } from '../domain/stage.ts';

interface AttemptRow {
  payment_id: string;
  status: Attempt['status'];
  amount: number;
  currency: string;
  order_id: string | null;
  paid_at: Date | null;
  locks_reference: boolean;
  lock_expires_at: Date | null;
  lock_has_expiry: boolean;
  webhook_delivery: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A delivery state of a payment's outcome webhook, from the WEBHOOKS stream. */
export interface DeliveryUpdate {
  paymentId: string;
  state: WebhookDelivery;
}

/** What became of one stream message. */
export type Applied = 'applied' | 'duplicate' | 'ignored';

/**
 * The status schema: the attempts projected from PAYMENTS, their webhook delivery state
 * projected from WEBHOOKS, and the projections' bookkeeping.
 */
export function statusRepository(sql: Sql) {
  return {
    /**
     * Every attempt of the product reference under this merchant and mode (never anyone
     * else's, never a QR code's of the same name).
     */
    async attemptsOf(scope: MerchantScope, reference: string): Promise<Attempt[]> {
      const rows = await sql<AttemptRow[]>`
        select payment_id, status, amount, currency, order_id, paid_at, locks_reference,
               lock_expires_at, lock_has_expiry, webhook_delivery, created_at, updated_at
        from attempts
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          and reference_kind = 'product' and reference = ${reference}`;
      return rows.map(toAttempt);
    },

    /**
     * Applies one PAYMENTS message in one transaction: moves the consumer's position,
     * records the event id (a second delivery stops there), and writes the attempt
     * unless the row already reflects a later stream sequence. `change` null: a message
     * that builds no attempt (or cannot be read), only counted.
     */
    async apply(
      consumer: string,
      streamSeq: number,
      change: { eventId: string; update: AttemptUpdate } | null,
    ): Promise<Applied> {
      return applyOnce(sql, consumer, streamSeq, change, (tx, { update }) =>
        upsertAttempt(tx, update, streamSeq),
      );
    },

    /**
     * Applies one WEBHOOKS message the same way: the attempt's webhook delivery state,
     * unless it already reflects a later WEBHOOKS sequence. An attempt not projected yet
     * gets it when its first payment event is (pending_webhook_deliveries).
     */
    async applyDelivery(
      consumer: string,
      streamSeq: number,
      change: { eventId: string; delivery: DeliveryUpdate } | null,
    ): Promise<Applied> {
      return applyOnce(sql, consumer, streamSeq, change, (tx, { delivery }) =>
        setDelivery(tx, delivery, streamSeq),
      );
    },

    /** The highest stream sequence this consumer applied; 0 when the database has none. */
    async positionOf(consumer: string): Promise<number> {
      const [row] = await sql<{ stream_seq: number }[]>`
        select stream_seq from consumer_positions where consumer = ${consumer}`;
      return row?.stream_seq ?? 0;
    },
  };
}

export type StatusRepository = ReturnType<typeof statusRepository>;

/**
 * One stream message in one transaction: the consumer's position moves, the event id is
 * recorded (a second delivery stops there), then `write` runs.
 */
async function applyOnce<C extends { eventId: string }>(
  sql: Sql,
  consumer: string,
  streamSeq: number,
  change: C | null,
  write: (tx: Tx, change: C) => Promise<void>,
): Promise<Applied> {
  return sql.begin(async (tx) => {
    await tx`
      insert into consumer_positions (consumer, stream_seq) values (${consumer}, ${streamSeq})
      on conflict (consumer) do update
        set stream_seq = greatest(consumer_positions.stream_seq, excluded.stream_seq)`;
    if (change === null) return 'ignored';
    const fresh = await tx`
      insert into processed_events (event_id, stream_seq)
      values (${change.eventId}, ${streamSeq})
      on conflict (event_id) do nothing
      returning event_id`;
    if (fresh.length === 0) return 'duplicate';
    await write(tx, change);
    return 'applied';
  });
}

/**
 * The two projections run concurrently in separate transactions. Without a common lock,
 * a delivery event could find no attempt row (its insert not committed yet) and park in
 * pending_webhook_deliveries while the attempt's insert finds nothing parked (the park
 * not committed yet), and the state would be stuck there. Both writers of one payment
 * take this transaction lock first, so one of them always sees the other's rows.
 */
async function lockPayment(tx: Tx, paymentId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${paymentId}, 0))`;
}

async function setDelivery(tx: Tx, delivery: DeliveryUpdate, webhookSeq: number): Promise<void> {
  await lockPayment(tx, delivery.paymentId);
  const [attempt] = await tx`select 1 from attempts where payment_id = ${delivery.paymentId}`;
  if (attempt) {
    await tx`
      update attempts set webhook_delivery = ${delivery.state}, webhook_seq = ${webhookSeq}
      where payment_id = ${delivery.paymentId}
        and (webhook_seq is null or webhook_seq < ${webhookSeq})`;
    return;
  }
  await tx`
    insert into pending_webhook_deliveries (payment_id, webhook_delivery, webhook_seq)
    values (${delivery.paymentId}, ${delivery.state}, ${webhookSeq})
    on conflict (payment_id) do update
      set webhook_delivery = excluded.webhook_delivery, webhook_seq = excluded.webhook_seq
      where pending_webhook_deliveries.webhook_seq < excluded.webhook_seq`;
}

// merchant, mode, reference and its kind are never updated: an attempt cannot move to another
// merchant's reference, whatever a later event says.
async function upsertAttempt(tx: Tx, update: AttemptUpdate, streamSeq: number): Promise<void> {
  await lockPayment(tx, update.paymentId);
  await tx`
    insert into attempts (
      payment_id, merchant_id, mode, reference, reference_kind, channel, status, amount,
      currency, order_id, paid_at, locks_reference, lock_expires_at, lock_has_expiry,
      created_at, updated_at, stream_seq
    ) values (
      ${update.paymentId}, ${update.merchantId}, ${update.mode}, ${update.reference},
      ${update.referenceKind}, 'AGENCY', ${update.status}, ${update.amount}, ${update.currency},
      ${update.orderId}, ${update.paidAt}, ${update.locksReference}, ${update.lockExpiresAt},
      ${update.lockHasExpiry}, ${update.createdAt}, ${update.updatedAt}, ${streamSeq}
    )
    on conflict (payment_id) do update set
      status = excluded.status,
      amount = excluded.amount,
      currency = excluded.currency,
      order_id = excluded.order_id,
      paid_at = excluded.paid_at,
      locks_reference = excluded.locks_reference,
      lock_expires_at = excluded.lock_expires_at,
      lock_has_expiry = excluded.lock_has_expiry,
      created_at = least(attempts.created_at, excluded.created_at),
      updated_at = excluded.updated_at,
      stream_seq = excluded.stream_seq
    where attempts.stream_seq < excluded.stream_seq`;
  // A delivery state that arrived before the attempt moves onto it (see setDelivery).
  await tx`
    with parked as (
      delete from pending_webhook_deliveries where payment_id = ${update.paymentId}
      returning webhook_delivery, webhook_seq
    )
    update attempts
    set webhook_delivery = parked.webhook_delivery, webhook_seq = parked.webhook_seq
    from parked
    where attempts.payment_id = ${update.paymentId}
      and (attempts.webhook_seq is null or attempts.webhook_seq < parked.webhook_seq)`;
}

function toAttempt(row: AttemptRow): Attempt {
  return {
    paymentId: row.payment_id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    orderId: row.order_id,
    paidAt: row.paid_at,
    locksReference: row.locks_reference,
    lockExpiresAt: row.lock_expires_at,
    lockHasExpiry: row.lock_has_expiry,
    webhookDelivery: WebhookDelivery.nullable().parse(row.webhook_delivery),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
