import type { Logger } from '@dzpay/platform';
import {
  CardNetworkError,
  type CardNetwork,
  type CardOrderStatus,
} from '../adapters/cardnet/card-network.ts';
import type { PaymentsRepository } from '../adapters/payments-repository.ts';
import { cardOutcome } from '../domain/card-outcome.ts';
import { EXPIRED, isOpen, OPEN_STATUSES } from '../domain/checkout-status.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';

export interface SettleDeps {
  repository: PaymentsRepository;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
  logger: Logger;
  clock: () => Date;
}

/**
 * Brings an open attempt in line with what the card network says of its order. Used
 * by the return route (after confirmOrder), the payer's pages and the sweeper, so
 * every path decides an attempt the same way. Never trusts the payer's redirect: the
 * order is always read server to server, and its amount checked.
 */
export function settler(deps: SettleDeps) {
  const { repository, logger, clock } = deps;
  const network = (record: PaymentRecord) => deps.cardNetworks[record.mode];

  async function apply(record: PaymentRecord, order: CardOrderStatus): Promise<PaymentRecord> {
    const outcome = cardOutcome(order, record.total, record.expiresAt, clock());
    switch (outcome.kind) {
      case 'undecided':
        return record;
      case 'paid':
        return (
          (await repository.transition(
            record.id,
            OPEN_STATUSES,
            {
              status: 'success',
              paidAt: clock(),
              approvalCode: outcome.approvalCode,
              maskedPan: outcome.maskedPan,
              actionCode: outcome.actionCode,
            },
            'payment.succeeded',
          )) ?? (await reread(record))
        );
      case 'declined':
        return fail(record, outcome.reason, {
          actionCode: outcome.actionCode,
          maskedPan: outcome.maskedPan,
        });
      case 'expire':
        return expire(record);
      case 'late':
        logger.warn({ paymentId: record.id }, 'paid after the window closed: refunding');
        await network(record).refund(record.cardnetOrderId!, outcome.paidAmount);
        return fail(record, EXPIRED);
      case 'amount-mismatch':
        logger.error(
          { paymentId: record.id, paid: outcome.paidAmount, total: record.total },
          'card network amount differs',
        );
        await network(record)
          .refund(record.cardnetOrderId!, outcome.paidAmount)
          .catch((err: unknown) =>
            logger.error({ err, paymentId: record.id }, 'refund of a mismatched amount failed'),
          );
        return fail(record, 'amount mismatch');
    }
  }

  async function fail(
    record: PaymentRecord,
    reason: string,
    extra: { actionCode?: number | null; maskedPan?: string | null } = {},
  ): Promise<PaymentRecord> {
    const failed = await repository.transition(
      record.id,
      OPEN_STATUSES,
      { status: 'failed', failureReason: reason, ...extra },
      'payment.failed',
    );
    return failed ?? (await reread(record));
  }

  /**
   * The window closed before the order was paid: cancel it at the card network first,
   * so a payer still on the card form cannot pay an attempt we report as expired. If
   * the cancellation fails because the order was paid meanwhile, the payment counts.
   */
  async function expire(record: PaymentRecord): Promise<PaymentRecord> {
    if (record.cardnetOrderId) {
      try {
        await network(record).reverse(record.cardnetOrderId);
      } catch (error) {
        if (!(error instanceof CardNetworkError)) throw error;
        const order = await network(record).status(record.cardnetOrderId);
        if (order.state === 'deposited') return apply(record, order);
        if (error.kind !== 'rejected') throw error;
      }
    }
    return fail(record, EXPIRED);
  }

  async function reread(record: PaymentRecord): Promise<PaymentRecord> {
    return (await repository.findById(record.id)) ?? record;
  }

  /**
   * A payment we already reported failed whose order the card network nevertheless
   * took (the payer finished the form after the window closed): the money goes back.
   */
  async function refundLatePayment(record: PaymentRecord): Promise<void> {
    if (!record.cardnetOrderId || record.status !== 'failed') return;
    const order = await network(record).status(record.cardnetOrderId);
    const kept = order.amount - order.refundedAmount;
    if (order.state === 'deposited' && kept > 0) {
      logger.warn({ paymentId: record.id }, 'refunding a payment made after its window closed');
      await network(record).refund(record.cardnetOrderId, kept);
    }
  }

  return {
    /** After the payer came back: confirm the order and record its outcome. */
    async confirm(record: PaymentRecord): Promise<PaymentRecord> {
      if (!isOpen(record.status)) {
        await refundLatePayment(record).catch((err: unknown) =>
          logger.error({ err, paymentId: record.id }, 'late payment check failed'),
        );
        return record;
      }
      if (!record.cardnetOrderId)
        return clock() >= record.expiresAt ? fail(record, EXPIRED) : record;
      try {
        return await apply(record, await network(record).confirm(record.cardnetOrderId));
      } catch (error) {
        // No verdict yet (timeout, network down): the attempt stays open and the
        // sweeper asks again; the payer is told the outcome is being confirmed.
        if (!(error instanceof CardNetworkError)) throw error;
        logger.warn(
          { err: error, paymentId: record.id },
          'confirmation failed; the sweeper will ask again',
        );
        return record;
      }
    },

    /** For the sweeper and the payer's pages: ask the card network, decide if it can. */
    async reconcile(record: PaymentRecord): Promise<PaymentRecord> {
      if (!isOpen(record.status)) return record;
      if (!record.cardnetOrderId)
        return clock() >= record.expiresAt ? fail(record, EXPIRED) : record;
      return apply(record, await network(record).status(record.cardnetOrderId));
    },
  };
}

export type Settler = ReturnType<typeof settler>;
