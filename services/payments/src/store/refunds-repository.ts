import { randomUUID } from 'node:crypto';
import type { Sql } from '@dzpay/platform';
import type { PaymentRecord } from '../domain/payment-record.ts';
import type { RefundIntent, RefundReason } from '../domain/refund-intent.ts';
import { paymentEventWriter } from './payment-event-writer.ts';
import { toRecord, type Row } from './payment-rows.ts';
import type { Lease } from './payments-repository.ts';

interface IntentRow {
  id: string;
  payment_id: string;
  amount: number;
  reason: RefundReason;
  idempotency_key: string | null;
  state: RefundIntent['state'];
  base_refunded: number;
  asked_at: Date | null;
  network_reference: string | null;
  created_at: Date;
  updated_at: Date;
}

/** How an intent ended. */
export type IntentEnd =
  /** It happened; `entry` is the refund history entry that is it, when known. */
  { state: 'succeeded'; entry: string | null } | { state: 'failed'; error: string };

/**
 * Refund intents (table `refunds`): every refund dzpay makes is written here before the
 * card network is asked, and marked asked just before, so a lost answer leaves an intent
 * to decide from the order's refund history, never a reason to refund again. Writes are
 * made under the payment's settlement lease.
 */
export function refundsRepository(sql: Sql, clock: () => Date = () => new Date()) {
  const addEvent = paymentEventWriter(clock);

  return {
    /** The payment's intent whose outcome is not known yet; there is one at most. */
    async open(paymentId: string): Promise<RefundIntent | null> {
      const [row] = await sql<IntentRow[]>`
        select * from refunds where payment_id = ${paymentId} and state = 'requested'`;
      return row ? toIntent(row) : null;
    },

    /** The refund a merchant's Idempotency-Key names (a refused one only if nothing newer). */
    async byKey(paymentId: string, key: string): Promise<RefundIntent | null> {
      const [row] = await sql<IntentRow[]>`
        select * from refunds where payment_id = ${paymentId} and idempotency_key = ${key}
        order by (state = 'failed'), created_at desc limit 1`;
      return row ? toIntent(row) : null;
    },

    /** Every intent of a payment, oldest first. */
    async ofPayment(paymentId: string): Promise<RefundIntent[]> {
      const rows = await sql<IntentRow[]>`
        select * from refunds where payment_id = ${paymentId} order by created_at, id`;
      return rows.map(toIntent);
    },

    /**
     * Writes an intent, committed before the card network is asked, and shows its amount
     * as pending on the payment. Null when the lease was lost or another intent of the
     * payment is still open.
     */
    async create(
      payment: PaymentRecord,
      lease: Lease,
      intent: {
        amount: number;
        reason: RefundReason;
        idempotencyKey: string | null;
        baseRefunded: number;
      },
    ): Promise<RefundIntent | null> {
      return sql.begin(async (tx) => {
        const [row] = await tx<IntentRow[]>`
          insert into refunds (id, payment_id, merchant_id, mode, amount, reason, idempotency_key,
            state, base_refunded)
          select ${randomUUID()}, ${payment.id}, ${payment.merchantId}, ${payment.mode},
            ${intent.amount}, ${intent.reason}, ${intent.idempotencyKey}, 'requested',
            ${intent.baseRefunded}
          from payments where id = ${payment.id} and settle_lease = ${lease}
          on conflict do nothing
          returning *`;
        if (!row) return null;
        await tx`update payments set pending_refund = ${intent.amount} where id = ${payment.id}`;
        return toIntent(row);
      });
    },

    /**
     * Marks an intent as sent, just before refund.do goes out; from then on it is never
     * sent again. Null when the lease was lost or the intent is no longer open.
     */
    async markAsked(intent: RefundIntent, lease: Lease): Promise<RefundIntent | null> {
      const [row] = await sql<IntentRow[]>`
        update refunds r set asked_at = coalesce(r.asked_at, now()), updated_at = now()
        from payments p
        where r.id = ${intent.id} and r.state = 'requested'
          and p.id = r.payment_id and p.settle_lease = ${lease}
        returning r.*`;
      return row ? toIntent(row) : null;
    },

    /**
     * Ends an intent. A merchant's refund that happened is added to the payment's
     * refunded amount in the same transaction (dzpay's own count: what the card network
     * shows beyond it is an alarm, never absorbed); one that refunds the rest of a success
     * makes it `refunded`. Every one that added to the refunded amount, partial or full,
     * publishes its own payment.refunded. Answers the payment as it is after; null when
     * the intent was already ended or the lease was lost.
     */
    async complete(
      intent: RefundIntent,
      lease: Lease,
      end: IntentEnd,
    ): Promise<PaymentRecord | null> {
      return sql.begin(async (tx) => {
        const [payment] = await tx<Row[]>`
          select * from payments where id = ${intent.paymentId} and settle_lease = ${lease}
          for update`;
        if (!payment) return null;
        const ended = await tx`
          update refunds
          set state = ${end.state}, updated_at = now(),
              error = ${end.state === 'failed' ? end.error : null},
              network_reference = ${end.state === 'succeeded' ? end.entry : null}
          where id = ${intent.id} and state = 'requested'
          returning 1`;
        if (ended.length === 0) return null;
        const record = toRecord(payment);
        const merchantRefund = end.state === 'succeeded' && intent.reason === 'merchant';
        const refundedAmount = merchantRefund
          ? Math.min(record.refundedAmount + intent.amount, record.total)
          : record.refundedAmount;
        const full = refundedAmount >= record.total && record.status === 'success';
        const [updated] = await tx<Row[]>`
          update payments
          set refunded_amount = ${refundedAmount}, pending_refund = 0,
              status = ${full ? 'refunded' : record.status}, updated_at = now()
          where id = ${record.id}
          returning *`;
        const after = toRecord(updated!);
        const refundAmount = after.refundedAmount - record.refundedAmount;
        if (refundAmount > 0) await addEvent(tx, 'payment.refunded', after, { refundAmount });
        return after;
      });
    },

    /**
     * Open intents not looked at for `quietMs`, whose payment nobody is settling and whose
     * sweeper backoff is over at `now`.
     */
    async stale(now: Date, quietMs: number, limit: number): Promise<RefundIntent[]> {
      const rows = await sql<IntentRow[]>`
        select r.* from refunds r join payments p on p.id = r.payment_id
        where r.state = 'requested'
          and r.updated_at < now() - ${quietMs} * interval '1 millisecond'
          and (p.settle_lease_until is null or p.settle_lease_until < now())
          and (p.next_sweep_at is null or p.next_sweep_at <= ${now})
        order by r.updated_at
        limit ${limit}`;
      return rows.map(toIntent);
    },

    /** Marks an open intent as looked at, so the next look waits `quietMs` again. */
    async touch(intentId: string): Promise<void> {
      await sql`update refunds set updated_at = now() where id = ${intentId} and state = 'requested'`;
    },
  };
}

export type RefundsRepository = ReturnType<typeof refundsRepository>;

function toIntent(row: IntentRow): RefundIntent {
  return {
    id: row.id,
    paymentId: row.payment_id,
    amount: row.amount,
    reason: row.reason,
    idempotencyKey: row.idempotency_key,
    state: row.state,
    baseRefunded: row.base_refunded,
    askedAt: row.asked_at,
    networkReference: row.network_reference,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
