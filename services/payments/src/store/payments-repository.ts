import { randomUUID } from 'node:crypto';
import type { MerchantScope, PaymentEventType, PaymentStatus } from '@dzpay/contracts';
import { AppError, type Sql, type Tx } from '@dzpay/platform';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { paymentEventWriter } from './payment-event-writer.ts';
import { insertPayments, type NewPayment } from './payment-inserts.ts';
import { toColumns, toRecord, type PaymentPatch, type Row } from './payment-rows.ts';

export type { PaymentPatch } from './payment-rows.ts';
export type { NewPayment } from './payment-inserts.ts';

/** The sale an attempt belongs to: at most one of its attempts is in flight or succeeded. */
export type Sale = Pick<
  PaymentRecord,
  'merchantId' | 'mode' | 'referenceKind' | 'reference' | 'epoch'
>;

/** A settlement's claim on an attempt: writes made under it are refused once it is lost. */
export type Lease = string;

/** What recording a success came to. */
export type SuccessOutcome =
  | { kind: 'succeeded'; record: PaymentRecord }
  /** Another attempt of the same sale succeeded first: this one must be refunded. */
  | { kind: 'second-success'; record: PaymentRecord }
  /** The attempt was decided meanwhile, or the lease was lost. */
  | { kind: 'not-open' };

const OPEN: PaymentStatus[] = ['pending', 'processing'];

/** The payments schema. Every state change writes its event to the outbox in the same transaction. */
export function paymentsRepository(sql: Sql, clock: () => Date = () => new Date()) {
  const addEvent = paymentEventWriter(clock);

  /** `and settle_lease = …` when a lease is given: a lost lease writes nothing. */
  const underLease = (tx: Sql | Tx, lease: Lease | undefined) =>
    lease ? tx`and settle_lease = ${lease}` : tx``;

  return {
    /**
     * Inserts a pending attempt and its payment.created event; null when the reference
     * is taken: an order number used before, or a sale another attempt holds or paid.
     * With `lease`, the attempt is born under that settlement lease (its registration
     * talks to the card network about it). With `idempotencyKey`, the payment is bound to
     * the key in the same transaction, so a retry of the key finds it whenever it was
     * committed; refused (nothing inserted) when the key is no longer this request's.
     */
    async insert(
      payment: NewPayment,
      options: {
        lease?: { id: Lease; ms: number };
        idempotencyKey?: { key: string; owner: string };
        /**
         * The payment link the payment is made through; `once` for a single-use link,
         * whose one sale the insert then takes or, held by another payment, returns null.
         */
        link?: { id: string; once: boolean };
      } = {},
    ): Promise<PaymentRecord | null> {
      const { lease, idempotencyKey, link } = options;
      return sql.begin(async (tx) => {
        const inserted = await insertPayments(tx, [
          { payment, ...(lease ? { lease } : {}), ...(link ? { link } : {}) },
        ]);
        const record = inserted.get(payment.id);
        if (!record) return null;
        if (idempotencyKey) {
          const bound = await tx`
            update idempotency_keys set payment_id = ${payment.id}
            where merchant_id = ${payment.merchantId} and mode = ${payment.mode}
              and key = ${idempotencyKey.key} and owner = ${idempotencyKey.owner}
              and response is null
            returning 1`;
          // Thrown to roll the payment back: the retry that holds the key now runs it.
          if (bound.length === 0) {
            throw new AppError(
              'IDEMPOTENCY409_KEY_REUSED',
              'a retry with this Idempotency-Key took it over; its answer is the one to use',
            );
          }
        }
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

    /** The attempt that holds the sale (in flight) or paid it, if any: there is one at most. */
    async saleHolder(sale: Sale): Promise<PaymentRecord | null> {
      const rows = await sql<Row[]>`
        select * from payments
        where merchant_id = ${sale.merchantId} and mode = ${sale.mode}
          and reference_kind = ${sale.referenceKind} and reference = ${sale.reference}
          and epoch = ${sale.epoch}
          and locks_reference and status in ('pending', 'processing', 'success')
        limit 1`;
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async findById(id: string): Promise<PaymentRecord | null> {
      const rows = await sql<Row[]>`select * from payments where id = ${id}`;
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async findByTokenHash(hash: Buffer): Promise<PaymentRecord | null> {
      const rows = await sql<Row[]>`select * from payments where checkout_token_hash = ${hash}`;
      return rows[0] ? toRecord(rows[0]) : null;
    },

    /** Sets fields without a state change; null when the lease was lost. */
    async annotate(id: string, patch: PaymentPatch, lease?: Lease): Promise<PaymentRecord | null> {
      const [row] = await sql<Row[]>`
        update payments set ${sql(toColumns(patch))}, updated_at = now()
        where id = ${id} ${underLease(sql, lease)} returning *`;
      return row ? toRecord(row) : null;
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
      lease?: Lease,
    ): Promise<PaymentRecord | null> {
      return sql.begin(async (tx) => {
        const rows = await tx<Row[]>`
          update payments set ${tx(toColumns(patch))}, updated_at = now()
          where id = ${id} and status in ${tx(from as PaymentStatus[])} ${underLease(tx, lease)}
          returning *`;
        if (!rows[0]) return null;
        const record = toRecord(rows[0]);
        await addEvent(tx, eventType, record);
        return record;
      });
    },

    /**
     * Records an open attempt's success, unless another attempt of its sale succeeded
     * already. The unique index payments_one_sale keeps a second attempt from opening
     * while one is in flight or paid; this check, serialized per sale, is the backstop
     * behind it: a success that would be the second is never recorded.
     */
    async succeed(id: string, patch: PaymentPatch, lease?: Lease): Promise<SuccessOutcome> {
      try {
        return await sql.begin(async (tx): Promise<SuccessOutcome> => {
          const [row] = await tx<Row[]>`
            select * from payments
            where id = ${id} and status in ${tx(OPEN)} ${underLease(tx, lease)}
            for update`;
          if (!row) return { kind: 'not-open' };
          const current = toRecord(row);
          if (current.locksReference && (await otherSuccess(tx, current))) {
            return { kind: 'second-success', record: current };
          }
          const [updated] = await tx<Row[]>`
            update payments set ${tx(toColumns({ ...patch, status: 'success' }))}, updated_at = now()
            where id = ${id} returning *`;
          const record = toRecord(updated!);
          await addEvent(tx, 'payment.succeeded', record);
          return { kind: 'succeeded', record };
        });
      } catch (error) {
        if (!isSaleConflict(error)) throw error;
        const [row] = await sql<Row[]>`select * from payments where id = ${id}`;
        const current = row ? toRecord(row) : null;
        return current ? { kind: 'second-success', record: current } : { kind: 'not-open' };
      }
    },

    // ---- settlement leases ----

    /**
     * Claims the right to talk to the card network about an attempt for `leaseMs`: the
     * return route, the payer's pages, the sweeper, refunds and other replicas take turns
     * per payment. Answers the attempt as it is now and the lease, or null when another
     * holds it. Nothing is held meanwhile: no connection, no transaction.
     */
    async claimSettlement(
      id: string,
      leaseMs: number,
    ): Promise<{ record: PaymentRecord; lease: Lease } | null> {
      const lease = randomUUID();
      const [row] = await sql<Row[]>`
        update payments
        set settle_lease = ${lease},
            settle_lease_until = now() + ${leaseMs} * interval '1 millisecond'
        where id = ${id} and (settle_lease_until is null or settle_lease_until < now())
        returning *`;
      return row ? { record: toRecord(row), lease } : null;
    },

    /** Extends a held lease; false when it was lost (it ran out and another took it). */
    async renewSettlement(id: string, lease: Lease, leaseMs: number): Promise<boolean> {
      const rows = await sql`
        update payments set settle_lease_until = now() + ${leaseMs} * interval '1 millisecond'
        where id = ${id} and settle_lease = ${lease}
        returning 1`;
      return rows.length === 1;
    },

    async releaseSettlement(id: string, lease: Lease): Promise<void> {
      await sql`
        update payments set settle_lease = null, settle_lease_until = null
        where id = ${id} and settle_lease = ${lease}`;
    },

    // ---- the sweeper ----

    /**
     * Open attempts whose window has closed, or that have waited for an outcome too
     * long, oldest turn first. An attempt the sweeper failed to decide waits out its
     * backoff (next_sweep_at), so newer attempts are never stuck behind it.
     */
    async needingAttention(
      now: Date,
      processingStaleAfterMs: number,
      limit: number,
    ): Promise<PaymentRecord[]> {
      const staleBefore = new Date(now.getTime() - processingStaleAfterMs);
      const rows = await sql<Row[]>`
        select * from payments
        where status in ('pending', 'processing')
          and (next_sweep_at is null or next_sweep_at <= ${now})
          and (expires_at <= ${now} or (status = 'processing' and updated_at <= ${staleBefore}))
          and (settle_lease_until is null or settle_lease_until < now())
        order by coalesce(next_sweep_at, expires_at)
        limit ${limit}`;
      return rows.map(toRecord);
    },

    /** Failed attempts the card network may still hold money for, whose turn has come. */
    async refundsDue(now: Date, limit: number): Promise<PaymentRecord[]> {
      const rows = await sql<Row[]>`
        select * from payments
        where refund_due and coalesce(next_sweep_at, updated_at) <= ${now}
          and (settle_lease_until is null or settle_lease_until < now())
        order by coalesce(next_sweep_at, updated_at)
        limit ${limit}`;
      return rows.map(toRecord);
    },

    /** When the sweeper looks at the attempt again: null = as soon as it is due. */
    async scheduleSweep(id: string, failures: number, nextAt: Date | null): Promise<void> {
      await sql`
        update payments set sweep_failures = ${failures}, next_sweep_at = ${nextAt}
        where id = ${id}`;
    },

    // ---- a registration taken over by a retry of its Idempotency-Key ----

    /**
     * Gives a pending attempt without an order a new order number, under `lease`: its
     * registration failed, and the network may still have made an order under the old
     * number, which it would refuse to register twice.
     */
    async renumber(id: string, lease: Lease): Promise<PaymentRecord | null> {
      const [row] = await sql<Row[]>`
        update payments set order_number = next_order_number(), updated_at = now()
        where id = ${id} and settle_lease = ${lease}
          and status = 'pending' and cardnet_order_id is null
        returning *`;
      return row ? toRecord(row) : null;
    },

    /**
     * Gives the attempt a new checkout token (hash): its first try died before anyone saw
     * the old one. Null when the lease was lost.
     */
    async reissueCheckout(
      id: string,
      lease: Lease,
      checkoutTokenHash: Buffer,
    ): Promise<PaymentRecord | null> {
      const [row] = await sql<Row[]>`
        update payments set checkout_token_hash = ${checkoutTokenHash}, updated_at = now()
        where id = ${id} and settle_lease = ${lease}
        returning *`;
      return row ? toRecord(row) : null;
    },
  };

  async function otherSuccess(tx: Tx, record: PaymentRecord): Promise<boolean> {
    const sale = `${record.merchantId}:${record.mode}:${record.referenceKind}:${record.epoch}:${record.reference}`;
    await tx`select pg_advisory_xact_lock(hashtextextended(${sale}, 0))`;
    const rows = await tx`
      select 1 from payments
      where merchant_id = ${record.merchantId} and mode = ${record.mode}
        and reference_kind = ${record.referenceKind} and reference = ${record.reference}
        and epoch = ${record.epoch} and status = 'success' and id <> ${record.id}
      limit 1`;
    return rows.length > 0;
  }
}

export type PaymentsRepository = ReturnType<typeof paymentsRepository>;

/** The sale index refused a row: another attempt holds or paid the sale. */
function isSaleConflict(error: unknown): boolean {
  const { code, constraint_name } = (error ?? {}) as { code?: string; constraint_name?: string };
  return code === '23505' && constraint_name === 'payments_one_sale';
}
