import type { Logger } from '@dzpay/platform';
import {
  CardNetworkError,
  isOrderUnknown,
  type CardNetwork,
  type CardOrderStatus,
} from '../card-network/card-network.ts';
import type { PaymentPatch, PaymentsRepository } from '../store/payments-repository.ts';
import { isPayable, LATE_PAYMENT_GRACE_MS, moneyKept } from '../domain/card-order.ts';
import { cardOutcome } from '../domain/card-outcome.ts';
import { ALREADY_PAID, EXPIRED, isOpen, OPEN_STATUSES } from '../domain/checkout-status.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import type { RefundReason } from '../domain/refund-intent.ts';
import type { RefundExecutor } from './refund-executor.ts';
import { LeaseLost, type Claimed, type WithSettlement } from './settlement-lease.ts';

export interface SettleDeps {
  repository: PaymentsRepository;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
  refunds: RefundExecutor;
  withSettlement: WithSettlement;
  logger: Logger;
  clock: () => Date;
  /** How long a reverse.do whose answer was lost may still land (REFUND_HORIZON_MS). */
  lateCallHorizonMs: number;
}

/** How long a payer's return waits for another settlement of the same payment to end. */
const PAYER_WAIT_MS = 2_000;

/**
 * Brings an attempt in line with what the card network says of its order. Used by the
 * return route (after confirmOrder), the payer's pages and the sweeper, so every path
 * decides an attempt the same way, and one at a time: each settlement holds the
 * payment's settlement lease. Never trusts the payer's redirect: the order is always read
 * server to server, its amount and its time checked. Money dzpay refuses (paid late, for
 * another amount, or the second success of a sale) is recorded as a failure first and
 * then refunded through an intent, so it is returned exactly once.
 */
export function settler(deps: SettleDeps) {
  const { repository, logger, clock } = deps;
  const network = (record: PaymentRecord) => deps.cardNetworks[record.mode];

  async function apply(claimed: Claimed, order: CardOrderStatus): Promise<PaymentRecord> {
    const { record } = claimed;
    const outcome = cardOutcome(
      order,
      record.total,
      record.expiresAt,
      clock(),
      record.reverseAskedAt !== null,
    );
    switch (outcome.kind) {
      case 'undecided':
        return record;
      case 'paid':
        if (reversalMayLand(record)) {
          logger.warn(
            { paymentId: record.id },
            'deposited, but a reversal asked by a cancel may still land: not a success yet',
          );
          return record;
        }
        return succeed(claimed, order, {
          paidAt: clock(),
          approvalCode: outcome.approvalCode,
          maskedPan: outcome.maskedPan,
          actionCode: outcome.actionCode,
        });
      case 'declined':
        return fail(claimed, outcome.reason, {
          actionCode: outcome.actionCode,
          maskedPan: outcome.maskedPan,
        });
      case 'expire':
        return expire(claimed);
      case 'late':
      case 'amount-mismatch':
        logger.warn(
          { paymentId: record.id, outcome: outcome.kind },
          'card network took money we refuse',
        );
        return refuse(
          claimed,
          order,
          outcome.kind,
          outcome.kind === 'late' ? EXPIRED : 'amount mismatch',
        );
    }
  }

  /**
   * A cancel sent reverse.do and never learnt its outcome: the network may still execute
   * it and give the payer's money back, so a deposit is not recorded as a success until
   * the reversal can no longer land (the order's state then decides: reversed, or
   * deposited past the horizon).
   */
  function reversalMayLand(record: PaymentRecord): boolean {
    if (!record.reverseAskedAt) return false;
    return clock().getTime() - record.reverseAskedAt.getTime() < deps.lateCallHorizonMs;
  }

  async function succeed(
    claimed: Claimed,
    order: CardOrderStatus,
    patch: PaymentPatch,
  ): Promise<PaymentRecord> {
    const recorded = await repository.succeed(claimed.record.id, patch, claimed.lease);
    if (recorded.kind === 'succeeded') return recorded.record;
    if (recorded.kind === 'not-open') return reread(claimed.record);
    // The backstop: the sale was paid by another attempt. This payer's money goes back,
    // and the partner hears payment.fail for this attempt, never a second success.
    logger.error(
      { paymentId: claimed.record.id, reference: claimed.record.reference },
      'a second success for one sale: refunded and recorded as failed',
    );
    return refuse(claimed, order, 'already-paid', ALREADY_PAID);
  }

  /** Records the attempt as failed, then returns what the card network kept of it. */
  async function refuse(
    claimed: Claimed,
    order: CardOrderStatus,
    reason: RefundReason,
    failureReason: string,
  ): Promise<PaymentRecord> {
    const failed = await fail(claimed, failureReason, { refundDue: true });
    if (failed.status !== 'failed' || !failed.refundDue) return failed;
    const returned = await returnKept({ ...claimed, record: failed }, order, reason);
    return returned
      ? ((await repository.annotate(failed.id, { refundDue: false }, claimed.lease)) ?? failed)
      : failed;
  }

  /** Refunds whatever the card network kept of the order; false while that is not done. */
  async function returnKept(
    claimed: Claimed,
    order: CardOrderStatus,
    reason: RefundReason,
  ): Promise<boolean> {
    try {
      const open = await deps.refunds.completeOpen(claimed);
      if (open?.kind === 'unknown') return false;
      const current = open ? await network(claimed.record).status(order.orderId) : order;
      const kept = moneyKept(current);
      if (kept === 0) return true;
      const refunded = await deps.refunds.refund(claimed, {
        amount: kept,
        reason,
        idempotencyKey: null,
        baseRefunded: current.refundedAmount,
      });
      return refunded.kind === 'succeeded';
    } catch (err) {
      if (!(err instanceof CardNetworkError)) throw err;
      logger.error(
        { err, paymentId: claimed.record.id },
        'refund of money we refuse failed; the sweeper retries',
      );
      return false;
    }
  }

  async function transition(claimed: Claimed, patch: PaymentPatch): Promise<PaymentRecord> {
    const eventType = patch.status === 'success' ? 'payment.succeeded' : 'payment.failed';
    const { record, lease } = claimed;
    return (
      (await repository.transition(record.id, OPEN_STATUSES, patch, eventType, lease)) ??
      (await reread(record))
    );
  }

  function fail(
    claimed: Claimed,
    reason: string,
    extra: { actionCode?: number | null; maskedPan?: string | null; refundDue?: boolean } = {},
  ): Promise<PaymentRecord> {
    return transition(claimed, { status: 'failed', failureReason: reason, ...extra });
  }

  /**
   * The window closed before the order was paid: cancel it at the card network first,
   * so a payer still on the card form cannot pay an attempt we report as expired. If
   * the order was paid meanwhile, its time decides. Whatever happens, the sweeper looks
   * at the order once more later (refund due) in case money lands after all.
   */
  async function expire(claimed: Claimed): Promise<PaymentRecord> {
    const { record } = claimed;
    if (!record.cardnetOrderId) return fail(claimed, EXPIRED);
    let order: CardOrderStatus;
    try {
      await claimed.fence();
      order = await network(record).reverse(record.cardnetOrderId);
    } catch (error) {
      if (!(error instanceof CardNetworkError)) throw error;
      if (isOrderUnknown(error)) return fail(claimed, EXPIRED);
      // Not reversed, or no answer: what the order is now decides. A read that fails
      // too throws, and the attempt stays held until the network can be read.
      try {
        order = await network(record).status(record.cardnetOrderId);
      } catch (readError) {
        if (isOrderUnknown(readError)) return fail(claimed, EXPIRED);
        throw readError;
      }
    }
    if (order.state === 'deposited') return apply(claimed, order);
    // Whatever the order says, the sweeper looks at it once more later (refund due) in
    // case money lands after all.
    return fail(claimed, EXPIRED, { refundDue: true });
  }

  async function reread(record: PaymentRecord): Promise<PaymentRecord> {
    return (await repository.findById(record.id)) ?? record;
  }

  /**
   * Runs a settlement under the payment's lease; without the lease (another settlement
   * holds it, even after `waitMs`), shows the current state.
   */
  async function settling(
    record: PaymentRecord,
    work: (claimed: Claimed) => Promise<PaymentRecord>,
    waitMs = 0,
  ): Promise<PaymentRecord> {
    // A settlement that lost its lease (a pause past it) stops: the state is as the new
    // holder leaves it.
    const settled = await deps
      .withSettlement(record.id, work, { waitMs })
      .catch((error: unknown) => {
        if (error instanceof LeaseLost) return null;
        throw error;
      });
    return settled ?? (await reread(record));
  }

  async function reconcileOpen(claimed: Claimed): Promise<PaymentRecord> {
    const { record: fresh } = claimed;
    if (!isOpen(fresh.status)) return fresh;
    const windowClosed = clock() >= fresh.expiresAt;
    if (!fresh.cardnetOrderId) return windowClosed ? fail(claimed, EXPIRED) : fresh;
    try {
      return await apply(claimed, await network(fresh).status(fresh.cardnetOrderId));
    } catch (error) {
      // After the window an order the card network does not know took no money. Any
      // other failure (access denied, a system error, no answer) says nothing: the
      // attempt stays held and the sweeper asks again.
      if (windowClosed && isOrderUnknown(error)) return fail(claimed, EXPIRED);
      throw error;
    }
  }

  /**
   * A failed attempt whose order may still hold money: refunds what the card network
   * kept; stops looking once the order can no longer be paid.
   */
  async function refundDueNow(claimed: Claimed): Promise<PaymentRecord> {
    const { record: fresh, lease } = claimed;
    if (!fresh.refundDue || !fresh.cardnetOrderId) return fresh;
    let order: CardOrderStatus;
    try {
      order = await network(fresh).status(fresh.cardnetOrderId);
    } catch (error) {
      // Only "order not found" clears what is owed; access denied or a system error
      // leaves it owed, and the sweeper asks again.
      if (!isOrderUnknown(error)) throw error;
      return (await repository.annotate(fresh.id, { refundDue: false }, lease)) ?? fresh;
    }
    // An order still payable (its cancellation failed when the window closed) is cancelled
    // now: the watch then ends at once instead of lasting the late-payment grace.
    if (isPayable(order.state)) {
      const orderId = fresh.cardnetOrderId;
      await claimed.fence();
      order = await network(fresh)
        .reverse(orderId)
        .catch(() => order);
    }
    const graceOver = clock().getTime() > fresh.expiresAt.getTime() + LATE_PAYMENT_GRACE_MS;
    if (isPayable(order.state) && !graceOver) return fresh;
    if (moneyKept(order) > 0) {
      logger.warn(
        { paymentId: fresh.id },
        'refunding money the card network took after we said failed',
      );
    }
    if (!(await returnKept(claimed, order, 'refund-due'))) {
      throw new Error('the refund of money we refuse is not done yet');
    }
    return (await repository.annotate(fresh.id, { refundDue: false }, lease)) ?? fresh;
  }

  return {
    /** After the payer came back: confirm the order and record its outcome. */
    confirm(record: PaymentRecord): Promise<PaymentRecord> {
      return settling(
        record,
        async (claimed) => {
          const { record: fresh } = claimed;
          // A payer back from paying an attempt already given up on: return the money now
          // rather than at the sweeper's next pass.
          if (fresh.refundDue) {
            return refundDueNow(claimed).catch((err: unknown) => {
              logger.warn(
                { err, paymentId: fresh.id },
                'refund due not done yet; the sweeper retries',
              );
              return fresh;
            });
          }
          if (!isOpen(fresh.status) || !fresh.cardnetOrderId) return reconcileOpen(claimed);
          try {
            await claimed.fence();
            return await apply(claimed, await network(fresh).confirm(fresh.cardnetOrderId));
          } catch (error) {
            // No verdict yet (timeout, network down): the attempt stays open and the
            // sweeper asks again; the payer is told the outcome is being confirmed.
            if (!(error instanceof CardNetworkError)) throw error;
            logger.warn(
              { err: error, paymentId: fresh.id },
              'confirmation failed; the sweeper will ask again',
            );
            // The card network holds the order: its lock on the reference has no expiry now.
            if (
              fresh.channel === 'AGENCY' &&
              fresh.status === 'processing' &&
              !fresh.awaitingVerdict
            ) {
              const awaiting = await repository.transition(
                fresh.id,
                ['processing'],
                { awaitingVerdict: true },
                'payment.processing',
                claimed.lease,
              );
              return awaiting ?? fresh;
            }
            return fresh;
          }
          // A payer back from the card form waits a moment for a settlement already under
          // way (the sweeper's) rather than reading "being confirmed" at once.
        },
        PAYER_WAIT_MS,
      );
    },

    /** For the sweeper and the payer's pages: ask the card network, decide if it can. */
    reconcile(record: PaymentRecord): Promise<PaymentRecord> {
      return settling(record, reconcileOpen);
    },

    /**
     * For a single-use link's next payer: an open attempt whose payer never reached the
     * card form (no card order, so no money can be taken) and that `givenUp` says is no
     * longer waited for, recorded expired. Under the settlement lease, which the click
     * placing the card order holds too: either the order is placed first and the attempt
     * keeps the link, or the attempt expires first and the click finds it unpayable.
     */
    expireUnplaced(
      record: PaymentRecord,
      givenUp: (fresh: PaymentRecord) => boolean,
    ): Promise<PaymentRecord> {
      return settling(record, async (claimed) => {
        const { record: fresh } = claimed;
        if (!isOpen(fresh.status) || fresh.cardnetOrderId || !givenUp(fresh)) return fresh;
        return fail(claimed, EXPIRED);
      });
    },

    /**
     * For the sweeper: a failed attempt whose order may still hold money. Refunds what
     * the card network kept; stops looking once the order can no longer be paid.
     */
    settleRefundDue(record: PaymentRecord): Promise<PaymentRecord> {
      return settling(record, refundDueNow);
    },

    /** For the sweeper: completes a refund whose outcome was not known (a lost answer). */
    completeRefund(record: PaymentRecord): Promise<PaymentRecord> {
      return settling(record, async (claimed) => {
        const outcome = await deps.refunds.completeOpen(claimed);
        if (outcome?.kind === 'unknown') throw new Error('refund outcome still unknown');
        return outcome?.kind === 'succeeded' ? outcome.payment : claimed.record;
      });
    },
  };
}

export type Settler = ReturnType<typeof settler>;
