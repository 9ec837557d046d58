import type { Logger } from '@dzpay/platform';
import { CardNetworkError, type CardNetwork } from '../adapters/cardnet/card-network.ts';
import type { RefundsRepository } from '../adapters/refunds-repository.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { intentHappened, type RefundIntent, type RefundReason } from '../domain/refund-intent.ts';
import type { Claimed } from './settlement.ts';

/** How a refund ended, as far as the card network has told. */
export type RefundOutcome =
  | { kind: 'succeeded'; payment: PaymentRecord }
  /** The card network refused it: it did not happen. */
  | { kind: 'rejected'; error: CardNetworkError }
  /** Asked, answer lost: the intent stays open until a retry or the sweeper completes it. */
  | { kind: 'unknown' };

export interface RefundExecutorDeps {
  refunds: RefundsRepository;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
  logger: Logger;
  clock: () => Date;
  /**
   * An open intent is asked of the card network again only after this long without a
   * word: longer than any call of ours may still be on its way there.
   */
  quietMs: number;
}

/**
 * Refunds exactly once, under a settlement lease: the intent is committed before the card
 * network is asked, and an intent whose answer was lost is completed from the network's
 * refunded amount (asked again only when that shows it did not happen, and the first ask
 * can no longer land).
 */
export function refundExecutor(deps: RefundExecutorDeps) {
  const { refunds, logger } = deps;
  const network = (record: PaymentRecord) => deps.cardNetworks[record.mode];

  async function ask(claimed: Claimed, intent: RefundIntent): Promise<RefundOutcome> {
    const orderId = claimed.record.cardnetOrderId!;
    const end = (networkRefunded: number) =>
      refunds.complete(intent, claimed.lease, { state: 'succeeded', networkRefunded });
    try {
      const after = await network(claimed.record).refund(orderId, intent.amount);
      return succeeded(await end(after.refundedAmount));
    } catch (error) {
      if (!(error instanceof CardNetworkError)) throw error;
      if (error.kind === 'rejected' && error.operation === 'refund') {
        await refunds.complete(intent, claimed.lease, { state: 'failed', error: error.message });
        return { kind: 'rejected', error };
      }
      // The refund may have happened (its answer, or the status read after it, was lost).
      const order = await network(claimed.record)
        .status(orderId)
        .catch(() => null);
      if (order && intentHappened(intent, order.refundedAmount)) {
        return succeeded(await end(order.refundedAmount));
      }
      logger.warn(
        { err: error, paymentId: intent.paymentId, refundId: intent.id },
        'refund outcome unknown; it is completed later, never made twice',
      );
      await refunds.touch(intent.id);
      return { kind: 'unknown' };
    }
  }

  /** A completion that found the intent already ended (or the lease lost) reads as unknown. */
  function succeeded(payment: PaymentRecord | null): RefundOutcome {
    return payment ? { kind: 'succeeded', payment } : { kind: 'unknown' };
  }

  return {
    /** Writes an intent and asks the card network; the caller completed any open one first. */
    async refund(
      claimed: Claimed,
      intent: {
        amount: number;
        reason: RefundReason;
        idempotencyKey: string | null;
        baseRefunded: number;
      },
    ): Promise<RefundOutcome> {
      const written = await refunds.create(claimed.record, claimed.lease, intent);
      if (!written) return { kind: 'unknown' };
      return ask(claimed, written);
    },

    /**
     * Brings the payment's open intent to an end if the card network can tell: null when
     * none was open. Throws when the network cannot be read.
     */
    async completeOpen(claimed: Claimed): Promise<RefundOutcome | null> {
      const intent = await refunds.open(claimed.record.id);
      if (!intent) return null;
      const orderId = claimed.record.cardnetOrderId;
      const order = orderId ? await network(claimed.record).status(orderId) : null;
      if (order && intentHappened(intent, order.refundedAmount)) {
        const networkRefunded = order.refundedAmount;
        return succeeded(
          await refunds.complete(intent, claimed.lease, { state: 'succeeded', networkRefunded }),
        );
      }
      const refundable =
        order?.state === 'deposited' && order.amount - order.refundedAmount >= intent.amount;
      if (!refundable) {
        const error = 'the order can no longer be refunded by this amount';
        await refunds.complete(intent, claimed.lease, { state: 'failed', error });
        return { kind: 'rejected', error: new CardNetworkError('rejected', 'refund', error) };
      }
      const quietFor = deps.clock().getTime() - intent.updatedAt.getTime();
      if (quietFor < deps.quietMs) return { kind: 'unknown' };
      // It did not happen, and the first ask can no longer arrive: ask once more.
      await refunds.touch(intent.id);
      return ask(claimed, intent);
    },
  };
}

export type RefundExecutor = ReturnType<typeof refundExecutor>;
