import { isUuid, type PaymentsRefundRequest, type PaymentView } from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import { CardNetworkError, type CardNetwork } from '../adapters/cardnet/card-network.ts';
import type { PaymentsRepository } from '../adapters/payments-repository.ts';
import { paymentView } from '../domain/payment-record.ts';

/**
 * Refunds all or part of a successful payment at the card network, under the payment's
 * row lock so two refunds never both reach it. Before asking, the order's refunded
 * amount is read: a refund whose answer was lost earlier is recorded, not made again.
 * A refund is never retried blindly.
 */
export function refunder(deps: {
  repository: PaymentsRepository;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
}) {
  return ({
    merchantId,
    mode,
    id,
    amount,
  }: Omit<PaymentsRefundRequest, 'idempotency'>): Promise<PaymentView> =>
    deps.repository.withLockedPayment(
      { merchantId, mode },
      isUuid(id) ? id : null,
      async (record, save) => {
        if (!record)
          throw new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'payment not found', {
            details: { id },
          });
        if (record.status !== 'success' || !record.cardnetOrderId) {
          throw new AppError(
            'PAYMENT_INSTANCE409_NOT_REFUNDABLE',
            'only a successful payment can be refunded',
            {
              details: { status: paymentView(record).status },
            },
          );
        }
        const network = deps.cardNetworks[mode];
        const orderId = record.cardnetOrderId;
        const order = await network.status(orderId).catch((error: unknown) => {
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
        try {
          await network.refund(orderId, refund);
        } catch (error) {
          if (!(error instanceof CardNetworkError)) throw error;
          const after =
            error.kind === 'rejected' ? null : await network.status(orderId).catch(() => null);
          if (!after || after.refundedAmount < already + refund) throw unavailable(error);
        }
        const refundedAmount = already + refund;
        const full = refundedAmount === record.total;
        return paymentView(
          await save(
            { refundedAmount, ...(full ? { status: 'refunded' as const } : {}) },
            full ? 'payment.refunded' : null,
          ),
        );
      },
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
