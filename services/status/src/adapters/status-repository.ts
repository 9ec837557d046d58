import { WebhookDelivery, type MerchantScope } from '@dzpay/contracts';
import type { Sql, Tx } from '@dzpay/platform';
import { isNewerState, type AttemptUpdate } from '../domain/attempt-event.ts';
import type { ChangedReference, StoredAttempt } from './attempts-cache.ts';
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
  revision: number;
  payment_version: number | null;
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
 * projected from WEBHOOKS, and the projections' bookkeeping. `onCommitted` hears of the
 * product references a write changed once its transaction has committed, before the
 * write resolves (so before the projection acknowledges the event).
 */
export function statusRepository(
  sql: Sql,
  hooks: { onCommitted?: (changed: ChangedReference) => void } = {},
) {
  const committed = (changed: ChangedReference[]) => changed.forEach((c) => hooks.onCommitted?.(c));

  /** What the batched forms do, for one message. */
  async function applyOne<C extends { eventId: string }>(
    consumer: string,
    message: Message<C>,
    write: Write<C>,
  ): Promise<Applied> {
    const [applied] = await applyOnce(sql, consumer, [message], committed, write);
    return applied!;
  }

  return {
    /**
     * Every attempt of the product reference under this merchant and mode (never anyone
     * else's, never a QR code's of the same name).
     */
    async attemptsOf(scope: MerchantScope, reference: string): Promise<StoredAttempt[]> {
      const rows = await sql<AttemptRow[]>`
        select payment_id, status, amount, currency, order_id, paid_at, locks_reference,
               lock_expires_at, lock_has_expiry, webhook_delivery, created_at, updated_at,
               revision, payment_version
        from attempts
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          and reference_kind = 'product' and reference = ${reference}`;
      return rows.map(toAttempt);
    },

    /**
     * Applies PAYMENTS messages, in stream order, in one transaction: moves the
     * consumer's position, records each event id (a second delivery stops there), and
     * writes each attempt unless its row already reflects a newer state (isNewerState:
     * the payment's version, else the stream sequence).
     * `change` null: a message that builds no attempt (or cannot be read), only counted.
     * One outcome per message, in their order.
     */
    async applyAll(
      consumer: string,
      messages: readonly Message<{ eventId: string; update: AttemptUpdate }>[],
    ): Promise<Applied[]> {
      return applyOnce(sql, consumer, messages, committed, upsertAttempts);
    },

    /** applyAll for one message. */
    apply(
      consumer: string,
      streamSeq: number,
      change: { eventId: string; update: AttemptUpdate } | null,
    ): Promise<Applied> {
      return applyOne(consumer, { streamSeq, change }, upsertAttempts);
    },

    /**
     * Applies WEBHOOKS messages the same way: each attempt's webhook delivery state,
     * unless it already reflects a later WEBHOOKS sequence. An attempt not projected yet
     * gets it when its first payment event is (pending_webhook_deliveries).
     */
    async applyDeliveries(
      consumer: string,
      messages: readonly Message<{ eventId: string; delivery: DeliveryUpdate }>[],
    ): Promise<Applied[]> {
      return applyOnce(sql, consumer, messages, committed, setDeliveries);
    },

    /** applyDeliveries for one message. */
    applyDelivery(
      consumer: string,
      streamSeq: number,
      change: { eventId: string; delivery: DeliveryUpdate } | null,
    ): Promise<Applied> {
      return applyOne(consumer, { streamSeq, change }, setDeliveries);
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

/** One stream message for a projection: its sequence and what it changes, if anything. */
export interface Message<C> {
  streamSeq: number;
  change: C | null;
}

/** Writes the changes of the messages not seen before; what it changed, for `committed`. */
type Write<C> = (
  tx: Tx,
  fresh: readonly (C & { streamSeq: number })[],
) => Promise<ChangedReference[]>;

/**
 * Stream messages in one transaction (one commit for a whole burst): the consumer's
 * position moves to the highest, each event id is recorded (a second delivery, also
 * within the batch, stops there), then `write` runs over the fresh changes in stream
 * order; what it changed is told to `committed` after the commit.
 */
async function applyOnce<C extends { eventId: string }>(
  sql: Sql,
  consumer: string,
  messages: readonly Message<C>[],
  committed: (changed: ChangedReference[]) => void,
  write: Write<C>,
): Promise<Applied[]> {
  let changed: ChangedReference[] = [];
  const outcomes = await sql.begin(async (tx): Promise<Applied[]> => {
    const highest = Math.max(...messages.map((message) => message.streamSeq));
    // Statements that need no answer of the one before are sent together (postgres.js
    // pipelines a transaction's queries issued at once; the server runs them in order):
    // a batch costs fewer round trips, and the lag of its events with them.
    const position = tx`
      insert into consumer_positions (consumer, stream_seq) values (${consumer}, ${highest})
      on conflict (consumer) do update
        set stream_seq = greatest(consumer_positions.stream_seq, excluded.stream_seq)`;
    const changes = messages.flatMap(({ streamSeq, change }) =>
      change ? [{ ...change, streamSeq }] : [],
    );
    if (changes.length === 0) {
      await position;
      return messages.map(() => 'ignored');
    }
    const [, inserted] = await Promise.all([
      position,
      tx<{ event_id: string }[]>`
        insert into processed_events (event_id, stream_seq)
        select * from unnest(${changes.map((c) => c.eventId)}::uuid[],
                             ${changes.map((c) => c.streamSeq)}::bigint[])
        on conflict (event_id) do nothing
        returning event_id`,
    ]);
    // Each new id once: the first message carrying it applies, any other is a duplicate.
    const unclaimed = new Set(inserted.map((row) => row.event_id));
    const results: Applied[] = [];
    const fresh: (C & { streamSeq: number })[] = [];
    for (const { streamSeq, change } of messages) {
      if (!change) results.push('ignored');
      else if (!unclaimed.delete(change.eventId)) results.push('duplicate');
      else {
        results.push('applied');
        fresh.push({ ...change, streamSeq });
      }
    }
    if (fresh.length > 0) changed = await write(tx, fresh);
    return results;
  });
  committed(changed);
  return outcomes;
}

/**
 * The two projections run concurrently in separate transactions. Without a common lock,
 * a delivery event could find no attempt row (its insert not committed yet) and park in
 * pending_webhook_deliveries while the attempt's insert finds nothing parked (the park
 * not committed yet), and the state would be stuck there. Both writers of a payment take
 * its transaction lock first, so one of them always sees the other's rows; a batch takes
 * its payments' locks in one order (sorted), so two batches never wait on each other in
 * a circle.
 */
function lockPayments(tx: Tx, paymentIds: readonly string[]) {
  const sorted = [...new Set(paymentIds)].sort();
  return tx`
    select pg_advisory_xact_lock(hashtextextended(id, 0))
    from (select id from unnest(${sorted}::text[]) with ordinality as t(id, n) order by n) ids`;
}

/** The newest of several changes to one payment in a batch, as `isNewer` says. */
function newestPerPayment<C>(
  changes: readonly C[],
  paymentOf: (change: C) => string,
  isNewer: (change: C, known: C) => boolean,
): C[] {
  const newest = new Map<string, C>();
  for (const change of changes) {
    const known = newest.get(paymentOf(change));
    if (!known || isNewer(change, known)) newest.set(paymentOf(change), change);
  }
  return [...newest.values()];
}

async function setDeliveries(
  tx: Tx,
  fresh: readonly { delivery: DeliveryUpdate; streamSeq: number }[],
): Promise<ChangedReference[]> {
  const rows = newestPerPayment(
    fresh,
    (change) => change.delivery.paymentId,
    (change, known) => change.streamSeq > known.streamSeq,
  ).map(({ delivery, streamSeq }) => ({
    paymentId: delivery.paymentId,
    state: delivery.state,
    seq: streamSeq,
  }));
  // Sent together, run in this order (see applyOnce): the locks first.
  const [, updated] = await Promise.all([
    lockPayments(
      tx,
      rows.map((row) => row.paymentId),
    ),
    tx<(ChangedReference & { referenceKind: string })[]>`
    update attempts a set webhook_delivery = x.state, webhook_seq = x.seq
    from jsonb_to_recordset(${tx.json(rows)}) as x("paymentId" uuid, state text, seq bigint)
    where a.payment_id = x."paymentId" and (a.webhook_seq is null or a.webhook_seq < x.seq)
    returning a.merchant_id as "merchantId", a.mode, a.reference,
              a.reference_kind as "referenceKind"`,
    // No attempt to show it on yet: parked until its first payment event is projected.
    tx`
    insert into pending_webhook_deliveries (payment_id, webhook_delivery, webhook_seq)
    select x."paymentId", x.state, x.seq
    from jsonb_to_recordset(${tx.json(rows)}) as x("paymentId" uuid, state text, seq bigint)
    where not exists (select 1 from attempts a where a.payment_id = x."paymentId")
    on conflict (payment_id) do update
      set webhook_delivery = excluded.webhook_delivery, webhook_seq = excluded.webhook_seq
      where pending_webhook_deliveries.webhook_seq < excluded.webhook_seq`,
  ]);
  return updated
    .filter((row) => row.referenceKind === 'product')
    .map(({ merchantId, mode, reference }) => ({ merchantId, mode, reference }));
}

// merchant, mode, reference and its kind are never updated: an attempt cannot move to another
// merchant's reference, whatever a later event says.
async function upsertAttempts(
  tx: Tx,
  fresh: readonly { update: AttemptUpdate; streamSeq: number }[],
): Promise<ChangedReference[]> {
  const newest = newestPerPayment(
    fresh,
    (change) => change.update.paymentId,
    (change, known) =>
      isNewerState(
        { paymentVersion: change.update.paymentVersion, streamSeq: change.streamSeq },
        { paymentVersion: known.update.paymentVersion, streamSeq: known.streamSeq },
      ),
  );
  // Each event carries the whole attempt; its first creation time is the earliest seen.
  const createdAt = new Map<string, number>();
  for (const { update } of fresh) {
    const time = update.createdAt.getTime();
    createdAt.set(update.paymentId, Math.min(time, createdAt.get(update.paymentId) ?? time));
  }
  const rows = newest.map(({ update, streamSeq }) => ({
    ...update,
    createdAt: new Date(createdAt.get(update.paymentId)!).toISOString(),
    streamSeq,
  }));
  // Sent together, run in this order (see applyOnce): the locks first.
  await Promise.all([
    lockPayments(
      tx,
      rows.map((row) => row.paymentId),
    ),
    tx`
    insert into attempts (
      payment_id, merchant_id, mode, reference, reference_kind, channel, status, amount,
      currency, order_id, paid_at, locks_reference, lock_expires_at, lock_has_expiry,
      created_at, updated_at, stream_seq, payment_version
    )
    select "paymentId", "merchantId", mode, reference, "referenceKind", 'AGENCY', status,
           amount, currency, "orderId", "paidAt", "locksReference", "lockExpiresAt",
           "lockHasExpiry", "createdAt", "updatedAt", "streamSeq", "paymentVersion"
    from jsonb_to_recordset(${tx.json(rows)}) as x(
      "paymentId" uuid, "merchantId" uuid, mode text, reference text, "referenceKind" text,
      status text, amount bigint, currency text, "orderId" text, "paidAt" timestamptz,
      "locksReference" boolean, "lockExpiresAt" timestamptz, "lockHasExpiry" boolean,
      "createdAt" timestamptz, "updatedAt" timestamptz, "streamSeq" bigint,
      "paymentVersion" bigint
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
      stream_seq = excluded.stream_seq,
      payment_version = excluded.payment_version
    -- isNewerState (domain/attempt-event.ts): two versions decide, else the stream order.
    where case
      when attempts.payment_version is not null and excluded.payment_version is not null
        then attempts.payment_version < excluded.payment_version
      else attempts.stream_seq < excluded.stream_seq
    end`,
    // Delivery states that arrived before their attempts move onto them (setDeliveries).
    tx`
    with parked as (
      delete from pending_webhook_deliveries
      where payment_id = any(${rows.map((row) => row.paymentId)}::uuid[])
      returning payment_id, webhook_delivery, webhook_seq
    )
    update attempts
    set webhook_delivery = parked.webhook_delivery, webhook_seq = parked.webhook_seq
    from parked
    where attempts.payment_id = parked.payment_id
      and (attempts.webhook_seq is null or attempts.webhook_seq < parked.webhook_seq)`,
  ]);
  return rows
    .filter((row) => row.referenceKind === 'product')
    .map(({ merchantId, mode, reference }) => ({ merchantId, mode, reference }));
}

function toAttempt(row: AttemptRow): StoredAttempt {
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
    revision: row.revision,
    paymentVersion: row.payment_version,
  };
}
