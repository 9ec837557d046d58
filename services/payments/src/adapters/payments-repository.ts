import { randomUUID } from 'node:crypto';
import {
  paymentEventSubject,
  type MerchantScope,
  type PaymentEventType,
  type PaymentStatus,
} from '@dzpay/contracts';
import { traceCarrier, type Sql, type Tx } from '@dzpay/platform';
import { paymentEvent, type PaymentRecord } from '../domain/payment-record.ts';
import { orderNumberOf } from '../domain/tokens.ts';

type Row = Record<string, unknown>;

/** Columns a state change may set, in record (camelCase) names. */
export type PaymentPatch = Partial<
  Pick<
    PaymentRecord,
    | 'status'
    | 'failureReason'
    | 'cardnetOrderId'
    | 'cardnetFormUrl'
    | 'approvalCode'
    | 'maskedPan'
    | 'actionCode'
    | 'refundedAmount'
    | 'refundDue'
    | 'awaitingVerdict'
    | 'paidAt'
  >
>;

const COLUMNS: Record<keyof PaymentPatch, string> = {
  status: 'status',
  failureReason: 'failure_reason',
  cardnetOrderId: 'cardnet_order_id',
  cardnetFormUrl: 'cardnet_form_url',
  approvalCode: 'approval_code',
  maskedPan: 'masked_pan',
  actionCode: 'action_code',
  refundedAmount: 'refunded_amount',
  refundDue: 'refund_due',
  awaitingVerdict: 'awaiting_verdict',
  paidAt: 'paid_at',
};

export type NewPayment = Omit<
  PaymentRecord,
  | 'orderNumber'
  | 'cardnetOrderId'
  | 'cardnetFormUrl'
  | 'approvalCode'
  | 'maskedPan'
  | 'actionCode'
  | 'refundedAmount'
  | 'refundDue'
  | 'awaitingVerdict'
  | 'paidAt'
  | 'createdAt'
  | 'updatedAt'
  | 'failureReason'
> & { checkoutTokenHash: Buffer };

/** The payments schema. Every state change writes its event to the outbox in the same transaction. */
export function paymentsRepository(sql: Sql, clock: () => Date = () => new Date()) {
  async function addEvent(tx: Tx, type: PaymentEventType, record: PaymentRecord): Promise<void> {
    const event = paymentEvent(randomUUID(), type, record, clock());
    await tx`insert into outbox (id, subject, payload, trace_carrier)
             values (${event.id}, ${paymentEventSubject(type)}, ${tx.json(event)},
               ${tx.json(traceCarrier())})`;
  }

  return {
    /** Inserts a pending attempt and its payment.created event; null when the reference is taken. */
    async insert(payment: NewPayment): Promise<PaymentRecord | null> {
      return sql.begin(async (tx) => {
        const [{ n }] = (await tx`select nextval('order_numbers')::bigint as n`) as unknown as [
          { n: number },
        ];
        const rows = await tx<Row[]>`
          insert into payments (id, merchant_id, mode, channel, reference, merchant_name, amount, fee, total,
            currency, language, status, success_url, failure_url, metadata, checkout_token_hash,
            order_number, expires_at, locks_reference, product_label)
          values (${payment.id}, ${payment.merchantId}, ${payment.mode}, ${payment.channel},
            ${payment.reference}, ${payment.merchantName}, ${payment.amount}, ${payment.fee},
            ${payment.total}, ${payment.currency}, ${payment.language}, ${payment.status},
            ${payment.successUrl}, ${payment.failureUrl},
            ${payment.metadata ? tx.json(payment.metadata as never) : null},
            ${payment.checkoutTokenHash}, ${orderNumberOf(n)}, ${payment.expiresAt},
            ${payment.locksReference}, ${payment.productLabel})
          on conflict do nothing
          returning *`;
        if (!rows[0]) return null;
        const record = toRecord(rows[0]);
        await addEvent(tx, 'payment.created', record);
        return record;
      });
    },

    async findForMerchant(scope: MerchantScope, id: string): Promise<PaymentRecord | null> {
      const rows = await sql<Row[]>`
        select * from payments
        where id = ${id} and merchant_id = ${scope.merchantId} and mode = ${scope.mode}`;
      return rows[0] ? toRecord(rows[0]) : null;
    },

    /** The in-flight attempt that holds a reference, if any. */
    async findLockHolder(scope: MerchantScope, reference: string): Promise<PaymentRecord | null> {
      const rows = await sql<Row[]>`
        select * from payments
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode} and reference = ${reference}
          and locks_reference and status in ('pending', 'processing')`;
      return rows[0] ? toRecord(rows[0]) : null;
    },

    /** Whether an AGENCY attempt on the reference succeeded (and was not refunded) since `since`. */
    async paidSince(scope: MerchantScope, reference: string, since: Date): Promise<boolean> {
      const rows = await sql`
        select 1 from payments
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode} and reference = ${reference}
          and channel = 'AGENCY' and status = 'success' and created_at >= ${since}
        limit 1`;
      return rows.length > 0;
    },

    async findById(id: string): Promise<PaymentRecord | null> {
      const rows = await sql<Row[]>`select * from payments where id = ${id}`;
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async findByTokenHash(hash: Buffer): Promise<PaymentRecord | null> {
      const rows = await sql<Row[]>`select * from payments where checkout_token_hash = ${hash}`;
      return rows[0] ? toRecord(rows[0]) : null;
    },

    /** Sets fields without a state change (the card network's order id and form). */
    async annotate(id: string, patch: PaymentPatch): Promise<PaymentRecord> {
      const [row] = await sql<Row[]>`
        update payments set ${sql(toColumns(patch))}, updated_at = now() where id = ${id} returning *`;
      return toRecord(row!);
    },

    /**
     * Moves an attempt from one of `from` to a new state and records the event, in one
     * transaction. Of concurrent callers exactly one succeeds; the others get null, so
     * an outcome is recorded (and published) once.
     */
    async transition(
      id: string,
      from: readonly PaymentStatus[],
      patch: PaymentPatch,
      eventType: PaymentEventType,
    ): Promise<PaymentRecord | null> {
      return sql.begin(async (tx) => {
        const rows = await tx<Row[]>`
          update payments set ${tx(toColumns(patch))}, updated_at = now()
          where id = ${id} and status in ${tx(from as PaymentStatus[])}
          returning *`;
        if (!rows[0]) return null;
        const record = toRecord(rows[0]);
        await addEvent(tx, eventType, record);
        return record;
      });
    },

    /**
     * Runs `work` while holding the row lock of a merchant's payment, so two refunds of
     * one payment can never both ask the card network.
     */
    async withLockedPayment<T>(
      scope: MerchantScope,
      id: string | null,
      work: (
        record: PaymentRecord | null,
        save: (patch: PaymentPatch, event: PaymentEventType | null) => Promise<PaymentRecord>,
      ) => Promise<T>,
    ): Promise<T> {
      return sql.begin(async (tx) => {
        const rows = id
          ? await tx<Row[]>`
              select * from payments
              where id = ${id} and merchant_id = ${scope.merchantId} and mode = ${scope.mode}
              for update`
          : [];
        const save = async (patch: PaymentPatch, event: PaymentEventType | null) => {
          const [row] = await tx<Row[]>`
            update payments set ${tx(toColumns(patch))}, updated_at = now() where id = ${id} returning *`;
          const record = toRecord(row!);
          if (event) await addEvent(tx, event, record);
          return record;
        };
        return work(rows[0] ? toRecord(rows[0]) : null, save);
      }) as Promise<T>;
    },

    /** Open attempts whose window has closed, or that have waited for an outcome too long. */
    async needingAttention(
      now: Date,
      processingStaleAfterMs: number,
      limit: number,
    ): Promise<PaymentRecord[]> {
      const staleBefore = new Date(now.getTime() - processingStaleAfterMs);
      const rows = await sql<Row[]>`
        select * from payments
        where status in ('pending', 'processing')
          and (expires_at <= ${now} or (status = 'processing' and updated_at <= ${staleBefore}))
        order by expires_at
        limit ${limit}`;
      return rows.map(toRecord);
    },

    /** Failed attempts the card network may still hold money for. */
    async refundsDue(limit: number): Promise<PaymentRecord[]> {
      const rows = await sql<Row[]>`
        select * from payments where refund_due order by updated_at limit ${limit}`;
      return rows.map(toRecord);
    },

    /**
     * Runs `work` while this process alone settles the payment: the return route, the
     * payer's pages, the sweeper and other replicas never talk to the card network about
     * one payment at the same time. The lock is a session advisory lock on a reserved
     * connection, so a process that dies mid-settlement releases it with its connection.
     * Returns null when someone else holds it.
     */
    async whileSettling<T>(id: string, work: () => Promise<T>): Promise<T | null> {
      const connection = await sql.reserve();
      const name = `dzpay:settle:${id}`;
      try {
        const [lock] = await connection<{ held: boolean }[]>`
          select pg_try_advisory_lock(hashtext(${name})) as held`;
        if (!lock?.held) return null;
        try {
          return await work();
        } finally {
          await connection`select pg_advisory_unlock(hashtext(${name}))`;
        }
      } finally {
        connection.release();
      }
    },

    // ---- idempotency keys ----

    /**
     * Claims a key for a first request, or says what an earlier one left: its answer to
     * replay, a mismatch (same key, other body), or that it is still running.
     */
    async claimIdempotencyKey(
      scope: MerchantScope,
      key: string,
      fingerprint: string,
    ): Promise<
      | { kind: 'claimed' }
      | { kind: 'replay'; response: unknown }
      | { kind: 'mismatch' }
      | { kind: 'in-progress' }
    > {
      // A key whose first request died without an answer (a crash) is claimed again
      // after a minute, rather than refusing every retry for 24 hours.
      const inserted = await sql`
        insert into idempotency_keys (merchant_id, mode, key, fingerprint)
        values (${scope.merchantId}, ${scope.mode}, ${key}, ${fingerprint})
        on conflict (merchant_id, mode, key) do update
          set fingerprint = excluded.fingerprint, created_at = now()
          where idempotency_keys.response is null
            and idempotency_keys.fingerprint = excluded.fingerprint
            and idempotency_keys.created_at < now() - interval '1 minute'
        returning key`;
      if (inserted.length === 1) return { kind: 'claimed' };
      const [row] = await sql<{ fingerprint: string; response: unknown; created_at: Date }[]>`
        select fingerprint, response, created_at from idempotency_keys
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode} and key = ${key}`;
      if (!row) return { kind: 'in-progress' };
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      return row.response === null
        ? { kind: 'in-progress' }
        : { kind: 'replay', response: row.response };
    },

    async storeIdempotentResponse(
      scope: MerchantScope,
      key: string,
      response: unknown,
    ): Promise<void> {
      await sql`
        update idempotency_keys set response = ${sql.json(response as never)}
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode} and key = ${key}`;
    },

    /** Frees a key whose request failed before it had an answer worth replaying. */
    async releaseIdempotencyKey(scope: MerchantScope, key: string): Promise<void> {
      await sql`
        delete from idempotency_keys
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode} and key = ${key} and response is null`;
    },

    /** Keys are replayed for 24 hours (ARCHITECTURE.md §6), then forgotten. */
    async forgetIdempotencyKeys(olderThan: Date): Promise<number> {
      const rows =
        await sql`delete from idempotency_keys where created_at < ${olderThan} returning 1`;
      return rows.length;
    },
  };
}

export type PaymentsRepository = ReturnType<typeof paymentsRepository>;

function toColumns(patch: PaymentPatch): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(patch).map(([field, value]) => [COLUMNS[field as keyof PaymentPatch], value]),
  );
}

function toRecord(row: Row): PaymentRecord {
  return {
    id: row.id as string,
    merchantId: row.merchant_id as string,
    mode: row.mode as PaymentRecord['mode'],
    channel: row.channel as PaymentRecord['channel'],
    reference: row.reference as string,
    merchantName: row.merchant_name as string,
    amount: row.amount as number,
    fee: row.fee as number,
    total: row.total as number,
    currency: row.currency as string,
    language: row.language as PaymentRecord['language'],
    status: row.status as PaymentStatus,
    failureReason: (row.failure_reason as string | null) ?? null,
    successUrl: (row.success_url as string | null) ?? null,
    failureUrl: (row.failure_url as string | null) ?? null,
    metadata: (row.metadata as Record<string, unknown> | null) ?? null,
    orderNumber: row.order_number as string,
    cardnetOrderId: (row.cardnet_order_id as string | null) ?? null,
    cardnetFormUrl: (row.cardnet_form_url as string | null) ?? null,
    approvalCode: (row.approval_code as string | null) ?? null,
    maskedPan: (row.masked_pan as string | null) ?? null,
    actionCode: (row.action_code as number | null) ?? null,
    refundedAmount: row.refunded_amount as number,
    refundDue: row.refund_due as boolean,
    locksReference: row.locks_reference as boolean,
    awaitingVerdict: row.awaiting_verdict as boolean,
    productLabel: (row.product_label as string | null) ?? null,
    expiresAt: row.expires_at as Date,
    paidAt: (row.paid_at as Date | null) ?? null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}
