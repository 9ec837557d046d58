import type { Logger } from '@dzpay/platform';
import {
  CardNetworkError,
  type CardNetwork,
  type CardOrderStatus,
} from '../card-network/card-network.ts';
import type { IntentEnd, RefundsRepository } from '../store/refunds-repository.ts';
import { moneyKept } from '../domain/card-order.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import {
  refundVerdict,
  unexplainedRefunded,
  type RefundIntent,
  type RefundReason,
} from '../domain/refund-intent.ts';
import type { Claimed } from './settlement-lease.ts';

/** How a refund ended, as far as the card network has told. */
export type RefundOutcome =
  | { kind: 'succeeded'; payment: PaymentRecord; intent: RefundIntent }
  /** The card network refused it (it answered, and did not act), or it can no longer happen. */
  | { kind: 'rejected'; error: CardNetworkError; intent: RefundIntent }
  /** Asked, answer lost: the intent stays open until the order's history tells. */
  | { kind: 'unknown'; intent: RefundIntent | null };

export interface RefundExecutorDeps {
  refunds: RefundsRepository;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
  logger: Logger;
  clock: () => Date;
  /**
   * An asked refund missing from its order's history this long after it was asked is
   * taken as never made; one that lands later still is the reconciler's alarm.
   */
  horizonMs: number;
  /** Money the network refunded beyond dzpay's intents: counted, never absorbed. */
  onUnexplainedRefund?: (paymentId: string, amount: number) => void;
}

/**
 * Refunds exactly once although refund.do has no idempotency key, under a settlement
 * lease: the intent is committed before the card network is asked, marked asked just
 * before the call, and never asked again; an intent whose answer was lost is decided
 * from the order's refund history (refund-intent.ts `refundVerdict`).
 */
export function refundExecutor(deps: RefundExecutorDeps) {
  const { refunds, logger } = deps;
  const network = (record: PaymentRecord) => deps.cardNetworks[record.mode];

  async function end(claimed: Claimed, intent: RefundIntent, how: IntentEnd) {
    return refunds.complete(intent, claimed.lease, how);
  }

  /** Ends the intent as succeeded, or reads as unknown when it was ended meanwhile or the lease lost. */
  async function succeeded(
    claimed: Claimed,
    intent: RefundIntent,
    entry: string | null,
  ): Promise<RefundOutcome> {
    const payment = await end(claimed, intent, { state: 'succeeded', entry });
    return payment ? { kind: 'succeeded', payment, intent } : { kind: 'unknown', intent };
  }

  async function rejected(
    claimed: Claimed,
    intent: RefundIntent,
    error: CardNetworkError,
  ): Promise<RefundOutcome> {
    await end(claimed, intent, { state: 'failed', error: error.message });
    return { kind: 'rejected', error, intent };
  }

  /**
   * What the order says of an asked intent, against the history entries the payment's
   * other intents account for; raises the alarm on money refunded beyond them all.
   */
  async function judge(intent: RefundIntent, order: CardOrderStatus) {
    const others = (await refunds.ofPayment(intent.paymentId)).filter((i) => i.id !== intent.id);
    watchForExcess(intent.paymentId, order, [...others, intent]);
    const accounted = new Set(
      others.flatMap((i) => (i.networkReference ? [i.networkReference] : [])),
    );
    return refundVerdict({
      intent,
      order,
      accounted,
      now: deps.clock(),
      horizonMs: deps.horizonMs,
    });
  }

  /** Decides an asked intent from the order as the network shows it now. */
  async function decide(
    claimed: Claimed,
    intent: RefundIntent,
    order: CardOrderStatus,
  ): Promise<RefundOutcome> {
    const verdict = await judge(intent, order);
    switch (verdict.kind) {
      case 'happened':
        return succeeded(claimed, intent, verdict.entry);
      case 'did-not-happen':
        logger.warn(
          { paymentId: intent.paymentId, refundId: intent.id, why: verdict.why },
          'refund asked but not made by the card network',
        );
        return rejected(claimed, intent, new CardNetworkError('refused', 'refund', verdict.why));
      case 'not-yet':
        await refunds.touch(intent.id);
        return { kind: 'unknown', intent };
    }
  }

  /** The network refunded more than dzpay's intents say: an alarm, never silence. */
  function watchForExcess(
    paymentId: string,
    order: CardOrderStatus,
    intents: readonly RefundIntent[],
  ): void {
    const excess = unexplainedRefunded(order, intents);
    if (excess === 0) return;
    logger.error(
      { paymentId, orderId: order.orderId, excess, networkRefunded: order.refundedAmount },
      'the card network refunded more than dzpay asked (docs/runbook.md: refunded beyond our intents)',
    );
    deps.onUnexplainedRefund?.(paymentId, excess);
  }

  /** Sends refund.do once for an intent never asked before. */
  async function ask(claimed: Claimed, intent: RefundIntent): Promise<RefundOutcome> {
    const orderId = claimed.record.cardnetOrderId!;
    const asked = await refunds.markAsked(intent, claimed.lease);
    if (!asked) return { kind: 'unknown', intent };
    // The intent is marked asked whatever happens next: a pause here that lets the lease
    // go leaves an intent nobody sends again, decided later from the history.
    await claimed.fence();
    let after: CardOrderStatus;
    try {
      after = await network(claimed.record).refund(orderId, asked.amount);
    } catch (error) {
      if (!(error instanceof CardNetworkError)) throw error;
      // refund.do answered 0; only the status read after it failed.
      if (error.operation !== 'refund') return succeeded(claimed, asked, null);
      // It answered an errorCode: the network did not act.
      if (!error.outcomeUnknown) return rejected(claimed, asked, error);
      logger.warn(
        { err: error, paymentId: asked.paymentId, refundId: asked.id },
        'refund outcome unknown; it is read from the order, never asked again',
      );
      const order = await network(claimed.record)
        .status(orderId)
        .catch(() => null);
      if (!order) return { kind: 'unknown', intent: asked };
      return decide(claimed, asked, order);
    }
    // refund.do answered 0: it happened; the history says which entry it is.
    const verdict = await judge(asked, after);
    return succeeded(claimed, asked, verdict.kind === 'happened' ? verdict.entry : null);
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
      if (!written) return { kind: 'unknown', intent: null };
      return ask(claimed, written);
    },

    /**
     * Brings the payment's open intent to an end if the card network can tell: null when
     * none was open. An intent never asked (its first try died before the call) is asked
     * now; one asked is decided from the order, never asked again. Throws when the
     * network cannot be read.
     */
    async completeOpen(claimed: Claimed): Promise<RefundOutcome | null> {
      const intent = await refunds.open(claimed.record.id);
      if (!intent) return null;
      const orderId = claimed.record.cardnetOrderId;
      if (!orderId) {
        const error = new CardNetworkError('refused', 'refund', 'the payment has no card order');
        return rejected(claimed, intent, error);
      }
      const order = await network(claimed.record).status(orderId);
      if (intent.askedAt) return decide(claimed, intent, order);
      if (moneyKept(order) < intent.amount) {
        const why = 'the order can no longer be refunded by this amount';
        return rejected(claimed, intent, new CardNetworkError('refused', 'refund', why));
      }
      return ask(claimed, intent);
    },
  };
}

export type RefundExecutor = ReturnType<typeof refundExecutor>;
