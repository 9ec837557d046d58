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

/** A card order may still be paid this long after our window closed (clock skew, late form). */
const LATE_PAYMENT_GRACE_MS = 10 * 60 * 1000;

/**
 * Brings an attempt in line with what the card network says of its order. Used by the
 * return route (after confirmOrder), the payer's pages and the sweeper, so every path
 * decides an attempt the same way — and one at a time: each settlement holds the
 * payment's settlement lock. Never trusts the payer's redirect: the order is always read
 * server to server, its amount and its time checked.
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
        return transition(record, {
          status: 'success',
          paidAt: clock(),
          approvalCode: outcome.approvalCode,
          maskedPan: outcome.maskedPan,
          actionCode: outcome.actionCode,
        });
      case 'declined':
        return fail(record, outcome.reason, {
          actionCode: outcome.actionCode,
          maskedPan: outcome.maskedPan,
        });
      case 'expire':
        return expire(record);
      case 'late':
      case 'amount-mismatch': {
        logger.warn(
          { paymentId: record.id, outcome: outcome.kind },
          'card network took money we refuse',
        );
        const refunded = await refundAll(record);
        return fail(record, outcome.kind === 'late' ? EXPIRED : 'amount mismatch', {
          refundDue: !refunded,
        });
      }
    }
  }

  async function transition(
    record: PaymentRecord,
    patch: Parameters<PaymentsRepository['transition']>[2],
  ) {
    const eventType = patch.status === 'success' ? 'payment.succeeded' : 'payment.failed';
    return (
      (await repository.transition(record.id, OPEN_STATUSES, patch, eventType)) ??
      (await reread(record))
    );
  }

  function fail(
    record: PaymentRecord,
    reason: string,
    extra: { actionCode?: number | null; maskedPan?: string | null; refundDue?: boolean } = {},
  ): Promise<PaymentRecord> {
    return transition(record, { status: 'failed', failureReason: reason, ...extra });
  }

  /**
   * The window closed before the order was paid: cancel it at the card network first,
   * so a payer still on the card form cannot pay an attempt we report as expired. If
   * the order was paid meanwhile, its time decides. Whatever happens, the sweeper looks
   * at the order once more later (refund due) in case money lands after all.
   */
  async function expire(record: PaymentRecord): Promise<PaymentRecord> {
    if (!record.cardnetOrderId) return fail(record, EXPIRED);
    try {
      const order = await network(record).reverse(record.cardnetOrderId);
      if (order.state === 'deposited') return apply(record, order);
    } catch (error) {
      if (!(error instanceof CardNetworkError)) throw error;
      const order = await network(record).status(record.cardnetOrderId);
      if (order.state === 'deposited') return apply(record, order);
    }
    return fail(record, EXPIRED, { refundDue: true });
  }

  /** Refunds whatever the card network kept of the order; false when it could not. */
  async function refundAll(record: PaymentRecord): Promise<boolean> {
    try {
      const order = await network(record).status(record.cardnetOrderId!);
      const kept = order.amount - order.refundedAmount;
      if (order.state === 'deposited' && kept > 0)
        await network(record).refund(record.cardnetOrderId!, kept);
      return true;
    } catch (err) {
      logger.error(
        { err, paymentId: record.id },
        'refund of money we refuse failed; the sweeper retries',
      );
      return false;
    }
  }

  async function reread(record: PaymentRecord): Promise<PaymentRecord> {
    return (await repository.findById(record.id)) ?? record;
  }

  /** An order the card network does not know (lost by a sandbox restart, or never made). */
  function unknownOrder(error: unknown): boolean {
    return error instanceof CardNetworkError && error.kind === 'rejected';
  }

  /** Runs a settlement under the payment's lock; without the lock, shows the current state. */
  async function settling(
    record: PaymentRecord,
    work: (fresh: PaymentRecord) => Promise<PaymentRecord>,
  ) {
    const settled = await repository.whileSettling(record.id, async () =>
      work(await reread(record)),
    );
    return settled ?? (await reread(record));
  }

  return {
    /** After the payer came back: confirm the order and record its outcome. */
    confirm(record: PaymentRecord): Promise<PaymentRecord> {
      return settling(record, async (fresh) => {
        if (!isOpen(fresh.status) || !fresh.cardnetOrderId) return reconcileOpen(fresh);
        try {
          return await apply(fresh, await network(fresh).confirm(fresh.cardnetOrderId));
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
            );
            return awaiting ?? fresh;
          }
          return fresh;
        }
      });
    },

    /** For the sweeper and the payer's pages: ask the card network, decide if it can. */
    reconcile(record: PaymentRecord): Promise<PaymentRecord> {
      return settling(record, reconcileOpen);
    },

    /**
     * For the sweeper: a failed attempt whose order may still hold money. Refunds what
     * the card network kept; stops looking once the order can no longer be paid.
     */
    settleRefundDue(record: PaymentRecord): Promise<PaymentRecord> {
      return settling(record, async (fresh) => {
        if (!fresh.refundDue || !fresh.cardnetOrderId) return fresh;
        let order: CardOrderStatus;
        try {
          order = await network(fresh).status(fresh.cardnetOrderId);
        } catch (error) {
          if (!unknownOrder(error)) throw error;
          return repository.annotate(fresh.id, { refundDue: false });
        }
        const kept = order.amount - order.refundedAmount;
        if (order.state === 'deposited' && kept > 0) {
          logger.warn(
            { paymentId: fresh.id },
            'refunding money the card network took after we said failed',
          );
          await network(fresh).refund(fresh.cardnetOrderId, kept);
          return repository.annotate(fresh.id, { refundDue: false });
        }
        const stillPayable = order.state === 'registered' || order.state === 'preauthorized';
        const graceOver = clock().getTime() > fresh.expiresAt.getTime() + LATE_PAYMENT_GRACE_MS;
        if (stillPayable && !graceOver) return fresh;
        return repository.annotate(fresh.id, { refundDue: false });
      });
    },
  };

  async function reconcileOpen(fresh: PaymentRecord): Promise<PaymentRecord> {
    if (!isOpen(fresh.status)) return fresh;
    const windowClosed = clock() >= fresh.expiresAt;
    if (!fresh.cardnetOrderId) return windowClosed ? fail(fresh, EXPIRED) : fresh;
    try {
      return await apply(fresh, await network(fresh).status(fresh.cardnetOrderId));
    } catch (error) {
      // After the window an order the card network does not know took no money.
      if (windowClosed && unknownOrder(error)) return fail(fresh, EXPIRED);
      throw error;
    }
  }
}

export type Settler = ReturnType<typeof settler>;
