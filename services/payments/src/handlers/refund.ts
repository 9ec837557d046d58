import { isUuid, type PaymentsRefundRequest, type PaymentView } from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import { CardNetworkError, type CardNetwork } from '../adapters/cardnet/card-network.ts';
import type { PaymentsRepository } from '../adapters/payments-repository.ts';
import type { RefundsRepository } from '../adapters/refunds-repository.ts';
import { paymentView, type PaymentRecord } from '../domain/payment-record.ts';
import type { RefundExecutor } from './refund-executor.ts';
import type { Claimed, WithSettlement } from './settlement.ts';

/** A refund waits this long for a settlement of the same payment to end before it says busy. */
const BUSY_WAIT_MS = 3_000;

export interface RefunderDeps {
  repository: PaymentsRepository;
  refunds: RefundsRepository;
  executor: RefundExecutor;
  withSettlement: WithSettlement;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
}

/**
 * Refunds all or part of a successful payment, exactly once. Under the payment's
 * settlement lease (so no other refund or settlement talks to the card network about it
 * meanwhile), an earlier refund whose outcome is unknown is completed first; a retry with
 * the Idempotency-Key of a refund that happened answers it instead of refunding again;
 * a new refund is written as an intent before the card network is asked. When the card
 * network's answer is lost, the merchant is told to retry with the same key, and the key
 * stays bound to that refund.
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
  }): Promise<PaymentView> => {
    const record = isUuid(id)
      ? await deps.repository.findForMerchant({ merchantId, mode }, id)
      : null;
    if (!record) {
      throw new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'payment not found', { details: { id } });
    }
    const refunded = await deps.withSettlement(
      record.id,
      async (claimed) => {
        const open = await deps.executor.completeOpen(claimed).catch((error: unknown) => {
          throw unavailable(error);
        });
        if (open?.kind === 'unknown') throw outcomeUnknown();
        const current = open?.kind === 'succeeded' ? open.payment : claimed.record;
        if (idempotencyKey) {
          const earlier = await deps.refunds.byKey(record.id, idempotencyKey);
          if (earlier?.state === 'succeeded') return paymentView(current);
        }
        return paymentView(
          await refundNow({ ...claimed, record: current }, amount, idempotencyKey),
        );
      },
      { waitMs: BUSY_WAIT_MS },
    );
    if (!refunded) {
      throw new AppError('SERVICE503_UNAVAILABLE', 'the payment is being settled; retry shortly', {
        details: { reason: 'payment busy' },
      });
    }
    return refunded;
  };

  async function refundNow(
    claimed: Claimed,
    amount: number | undefined,
    idempotencyKey: string | null,
  ): Promise<PaymentRecord> {
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
    // The card network's count wins: it is what the payer got back.
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
    if (outcome.kind === 'succeeded') return outcome.payment;
    if (outcome.kind === 'rejected') throw unavailable(outcome.error);
    throw outcomeUnknown();
  }
}

function outcomeUnknown(): AppError {
  return new AppError(
    'SERVICE503_UNAVAILABLE',
    'the card network has not confirmed the refund yet; retry with the same Idempotency-Key to learn its outcome',
    { details: { reason: 'card network', refund: 'pending' } },
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
      cause: error,
    },
  );
}
