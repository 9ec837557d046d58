import {
  isUuid,
  type PaymentsRefundAnswer,
  type PaymentsRefundReply,
  type PaymentsRefundRequest,
} from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import type { PaymentsContext } from '../context.ts';
import { CardNetworkError } from '../card-network/card-network.ts';
import { paymentView, type PaymentRecord } from '../domain/payment-record.ts';
import type { RefundIntent } from '../domain/refund-intent.ts';
import type { RefundOutcome } from '../lifecycle/refund-executor.ts';
import { LeaseLost, type Claimed } from '../lifecycle/settlement-lease.ts';

/** A refund waits this long for a settlement of the same payment to end before it says busy. */
const BUSY_WAIT_MS = 3_000;

/** What a refund runs on, taken from the payments context. */
export type RefunderDeps = Pick<
  PaymentsContext,
  'repository' | 'refunds' | 'executor' | 'withSettlement' | 'cardNetworks'
>;

/**
 * The refund was asked of the card network and its outcome is not known yet: answered
 * (202, the refund pending), never stored as the Idempotency-Key's final answer, so a
 * retry with the key learns the outcome.
 */
export class RefundPending extends Error {
  readonly reply: PaymentsRefundReply;

  constructor(reply: PaymentsRefundReply) {
    super('the refund is pending at the card network');
    this.name = 'RefundPending';
    this.reply = reply;
  }
}

/**
 * Refunds all or part of a successful payment, exactly once. Under the payment's
 * settlement lease (so no other refund or settlement talks to the card network about it
 * meanwhile), an earlier refund whose outcome is unknown is decided first from the
 * order's refund history; while it stays unknown, a retry with its Idempotency-Key
 * hears it is pending and any other refund of the payment waits (409). A retry with the
 * key of a refund that happened answers it instead of refunding again; a new refund is
 * written as an intent before the card network is asked.
 */
export function refunder(deps: RefunderDeps) {
  return async ({
    merchantId,
    mode,
    id,
    amount,
    idempotencyKey,
  }: Omit<PaymentsRefundRequest, 'idempotency'> & {
    idempotencyKey: string | null;
  }): Promise<PaymentsRefundAnswer> => {
    const record = isUuid(id)
      ? await deps.repository.findForMerchant({ merchantId, mode }, id)
      : null;
    if (!record) {
      throw new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'payment not found', { details: { id } });
    }
    const refunded = await deps
      .withSettlement(
        record.id,
        async (claimed) => {
          const open = await deps.executor.completeOpen(claimed).catch((error: unknown) => {
            throw unavailable(error);
          });
          if (open?.kind === 'unknown') {
            const mine = idempotencyKey !== null && open.intent?.idempotencyKey === idempotencyKey;
            if (mine)
              throw new RefundPending(reply(await current(claimed), open.intent!, 'pending'));
            throw refundPending(claimed.record);
          }
          const now = open?.kind === 'succeeded' ? open.payment : claimed.record;
          if (idempotencyKey) {
            const earlier = await deps.refunds.byKey(record.id, idempotencyKey);
            // The refund this key made (its stored answer lost or forgotten): answered again.
            if (earlier?.state === 'succeeded') {
              return { ...reply(now, earlier, 'succeeded'), replayed: true };
            }
          }
          return refundNow({ ...claimed, record: now }, amount, idempotencyKey);
        },
        { waitMs: BUSY_WAIT_MS },
      )
      .catch((error: unknown) => {
        // Paused past its lease: another process settles the payment now; retry.
        if (error instanceof LeaseLost) return null;
        throw error;
      });
    if (!refunded) {
      throw new AppError('SERVICE503_UNAVAILABLE', 'the payment is being settled; retry shortly', {
        details: { reason: 'payment busy' },
      });
    }
    return refunded;
  };

  async function current(claimed: Claimed): Promise<PaymentRecord> {
    return (await deps.repository.findById(claimed.record.id)) ?? claimed.record;
  }

  async function refundNow(
    claimed: Claimed,
    amount: number | undefined,
    idempotencyKey: string | null,
  ): Promise<PaymentsRefundReply> {
    const { record } = claimed;
    if (record.status !== 'success' || !record.cardnetOrderId) {
      throw new AppError(
        'PAYMENT_INSTANCE409_NOT_REFUNDABLE',
        'only a successful payment can be refunded',
        { details: { status: paymentView(record).status } },
      );
    }
    const order = await deps.cardNetworks[record.mode]
      .status(record.cardnetOrderId)
      .catch((error: unknown) => {
        throw unavailable(error);
      });
    // Never more than either count leaves: dzpay's own, or the card network's when it
    // shows more (refunds made outside dzpay, an alarm of their own).
    const already = Math.max(record.refundedAmount, order.refundedAmount);
    const remaining = record.total - already;
    const refund = amount ?? remaining;
    if (remaining === 0 || refund > remaining) {
      throw new AppError('VALIDATION400_BAD_REQUEST', 'amount exceeds what is left to refund', {
        details: {
          failures: [{ field: 'amount', message: `amount must be at most ${remaining}` }],
        },
      });
    }
    const outcome = await deps.executor.refund(claimed, {
      amount: refund,
      reason: 'merchant',
      idempotencyKey,
      baseRefunded: order.refundedAmount,
    });
    return answer(claimed, outcome);
  }

  async function answer(claimed: Claimed, outcome: RefundOutcome): Promise<PaymentsRefundReply> {
    switch (outcome.kind) {
      case 'succeeded':
        return reply(outcome.payment, outcome.intent, 'succeeded');
      case 'rejected':
        throw unavailable(outcome.error);
      case 'unknown':
        // Null: the lease was lost before anything was asked.
        if (!outcome.intent) throw unavailable(null);
        throw new RefundPending(reply(await current(claimed), outcome.intent, 'pending'));
    }
  }
}

function reply(
  payment: PaymentRecord,
  intent: RefundIntent,
  status: 'pending' | 'succeeded',
): PaymentsRefundReply {
  return { ...paymentView(payment), refund: { id: intent.id, amount: intent.amount, status } };
}

/** Another refund of the payment is pending: this one waits, and is not stored for its key. */
function refundPending(record: PaymentRecord): AppError {
  return new AppError(
    'PAYMENT_INSTANCE409_REFUND_PENDING',
    'another refund of this payment awaits the card network; retry later',
    { details: { id: record.id, pendingRefundAmount: record.pendingRefund } },
  );
}

function unavailable(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError(
    'SERVICE503_UNAVAILABLE',
    'the card network did not take the refund; retry later',
    {
      details: {
        reason: 'card network',
        ...(error instanceof CardNetworkError && error.errorCode
          ? { cardNetworkCode: error.errorCode }
          : {}),
      },
      ...(error ? { cause: error } : {}),
    },
  );
}
