import { isUuid, type MerchantScope } from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import type { PaymentsContext } from '../context.ts';
import {
  CardNetworkError,
  isOrderUnknown,
  type CardNetwork,
  type CardOrderStatus,
} from '../card-network/card-network.ts';
import { isPayable } from '../domain/card-order.ts';
import { CANCELLED, checkoutStatusOf, isOpen, OPEN_STATUSES } from '../domain/checkout-status.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { LeaseLost, type Claimed } from '../lifecycle/settlement-lease.ts';

/** What a cancel runs on, taken from the payments context. */
export type CancelDeps = Pick<
  PaymentsContext,
  'repository' | 'withSettlement' | 'settle' | 'cardNetworks' | 'logger'
> & {
  /** How long a cancel waits for a settlement already under way (the payer's return). */
  waitMs?: number;
};

/** What the cancel's settlement came to. */
type Outcome =
  /** `unchanged`: decided before this cancel (by another cancel, the payer or the sweeper). */
  | { kind: 'decided'; record: PaymentRecord; unchanged: boolean }
  /** The card network says the order was paid: it is settled as paid, not cancelled. */
  | { kind: 'paid'; record: PaymentRecord };

const DEFAULT_WAIT_MS = 3_000;

/**
 * The merchant cancels a hosted-checkout payment not paid yet. Under the payment's
 * settlement lease (no confirmation, expiry or other cancel talks to the card network
 * about it meanwhile), the card order is first stopped at the card network (reverse.do),
 * so a payer still on the card form cannot pay it afterwards; if the network says it was
 * paid, the payment is settled as paid and the cancel refused. The state change is one
 * UPDATE guarded by status and lease, with its payment.failed event in the same
 * transaction (outbox). Cancelling a cancelled payment answers it again, `unchanged`
 * (nothing was done: the audit log records the cancel that did it, not this one).
 */
export function paymentCanceller(deps: CancelDeps) {
  const { repository, logger } = deps;

  async function cancel(
    scope: MerchantScope,
    id: string,
  ): Promise<{ record: PaymentRecord; unchanged: boolean }> {
    const record = isUuid(id) ? await repository.findForMerchant(scope, id) : null;
    // AGENCY attempts belong to partners' sales, not to the merchant's checkout: not here.
    if (!record || record.channel !== 'CHECKOUT') {
      throw new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'payment not found', {
        details: { id },
      });
    }
    if (!isOpen(record.status)) return { record: cancelledOrRefuse(record), unchanged: true };
    const networks = deps.cardNetworks;

    const outcome = await deps
      .withSettlement(
        record.id,
        (claimed) => cancelClaimed(claimed, networks[claimed.record.mode]),
        { waitMs: deps.waitMs ?? DEFAULT_WAIT_MS },
      )
      .catch((error: unknown) => {
        // Paused past its lease: another process settles the payment now.
        if (error instanceof LeaseLost) return null;
        throw error;
      });
    if (outcome === null) throw unavailable('the payment is being settled; retry');
    if (outcome.kind === 'paid') {
      // Recorded as the card network says (succeeded, or refused and refunded when paid
      // late or for another amount): the settler decides, as for every other path.
      const settled = await deps.settle.reconcile(outcome.record);
      throw notCancellable(settled);
    }
    return { record: cancelledOrRefuse(outcome.record), unchanged: outcome.unchanged };
  }

  async function cancelClaimed(claimed: Claimed, network: CardNetwork): Promise<Outcome> {
    const { record: fresh, lease } = claimed;
    if (!isOpen(fresh.status)) return { kind: 'decided', record: fresh, unchanged: true };
    let refundDue = false;
    if (fresh.cardnetOrderId) {
      const order = await stopOrder(network, claimed, fresh.cardnetOrderId);
      if (order?.state === 'deposited') return { kind: 'paid', record: fresh };
      // Unless the order is reversed for good, the sweeper watches it (refund due): it
      // reverses an order still payable again and refunds any money that lands.
      refundDue = order !== null && order.state !== 'reversed';
    }
    const cancelled = await repository.transition(
      fresh.id,
      OPEN_STATUSES,
      { status: 'failed', failureReason: CANCELLED, refundDue },
      'payment.failed',
      lease,
    );
    if (cancelled) return { kind: 'decided', record: cancelled, unchanged: false };
    const now = (await repository.findById(fresh.id)) ?? fresh;
    return { kind: 'decided', record: now, unchanged: true };
  }

  /**
   * Reads the order, and reverses it unless it was paid. Null when the card network does
   * not know the order (it can take no money). Throws 503, cancelling nothing, when the
   * network cannot say, or when the order is still payable after all: a cancel that
   * cannot stop the order must not tell the merchant it did.
   */
  async function stopOrder(
    network: CardNetwork,
    claimed: Claimed,
    orderId: string,
  ): Promise<CardOrderStatus | null> {
    try {
      const order = await network.status(orderId);
      if (!isPayable(order.state)) return order;
      // Written before the call: a reversal that goes unanswered may still land later.
      await repository.annotate(claimed.record.id, { reverseAskedAt: new Date() }, claimed.lease);
      try {
        await claimed.fence();
        return await network.reverse(orderId);
      } catch (error) {
        if (!(error instanceof CardNetworkError)) throw error;
        logger.warn({ err: error, orderId }, 'reverse failed; reading the order');
        // An answered refusal acted on nothing and never lands later.
        if (!error.outcomeUnknown && error.operation === 'reverse') {
          await repository.annotate(claimed.record.id, { reverseAskedAt: null }, claimed.lease);
        }
        const after = await network.status(orderId);
        if (isPayable(after.state)) {
          throw unavailable(
            'the card network did not stop the order; the payment is not cancelled',
          );
        }
        return after;
      }
    } catch (error) {
      if (!(error instanceof CardNetworkError)) throw error;
      // Only the answer that means "no such order" says no money can be taken.
      if (isOrderUnknown(error)) return null;
      throw unavailable('the card network did not answer; the payment is not cancelled');
    }
  }

  return cancel;
}

/** A cancelled payment is answered as it is; any other decided one is refused. */
function cancelledOrRefuse(record: PaymentRecord): PaymentRecord {
  if (checkoutStatusOf(record.status, record.failureReason) === 'cancelled') return record;
  throw notCancellable(record);
}

function notCancellable(record: PaymentRecord): AppError {
  const status = checkoutStatusOf(record.status, record.failureReason);
  return new AppError(
    'PAYMENT_INSTANCE409_NOT_CANCELLABLE',
    `payment is ${status}: only a payment not paid yet can be cancelled`,
    { details: { id: record.id, status } },
  );
}

function unavailable(message: string): AppError {
  return new AppError('SERVICE503_UNAVAILABLE', message, { details: { retryAfterSeconds: 1 } });
}
