import { DiscrepancyKind } from '@dzpay/contracts';
import { isPayable, LATE_PAYMENT_GRACE_MS, type CardOrderStatus } from '../domain/card-order.ts';
import { isOpen } from '../domain/checkout-status.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { unexplainedRefunded, type RefundIntent } from '../domain/refund-intent.ts';

/**
 * Reconciliation, as payment companies run it: every order the card network holds for
 * dzpay is compared with dzpay's own record of it, and what differs is either made right
 * by dzpay (only ever "refund due": the sweeper then asks the network and returns what it
 * kept, so a wrong call costs a status read) or raised for an operator.
 */
/** The kinds, their meaning written once with the report's schema (libs/contracts). */
export const DISCREPANCY_KINDS = DiscrepancyKind.options;

/** What dzpay does about a discrepancy by itself; null: an alarm, an operator acts. */
type SafeFix = 'refund-due';

export interface Discrepancy {
  kind: DiscrepancyKind;
  /** Centimes at stake. */
  amount: number;
  /** The quantity compared as dzpay records it (centimes); null when dzpay has none. */
  dzpayAmount: number | null;
  /** The same as the card network shows it; null when the network has no such order. */
  networkAmount: number | null;
  fix: SafeFix | null;
  /** One sentence for the operator: what differs. */
  detail: string;
}

export type Comparison =
  /** Legitimately undecided now (an open attempt, a refund not known yet): not compared. */
  { kind: 'in-flight'; why: string } | { kind: 'compared'; discrepancies: Discrepancy[] };

/** What the reconciler knows of a payment. */
export type ReconciledPayment = Pick<
  PaymentRecord,
  'id' | 'status' | 'total' | 'refundedAmount' | 'refundDue' | 'cardnetOrderId' | 'expiresAt'
>;

export interface ComparisonInput {
  /** The order as the network shows it; null when the network says it has no such order. */
  order: CardOrderStatus | null;
  /**
   * The dzpay payment the order is for (by its cardnet_order_id, else by the order's
   * udf1); null when none. A payment that names another order does not own this one.
   */
  payment: ReconciledPayment | null;
  /** The payment's refund intents. */
  intents: readonly Pick<RefundIntent, 'amount' | 'state'>[];
  now: Date;
}

/** Money the network took and still holds: captured and not refunded. */
function capturedOf(order: CardOrderStatus): number {
  const captured = order.state === 'deposited' || order.state === 'refunded';
  return captured ? Math.max(0, order.amount - order.refundedAmount) : 0;
}

/** Money the order holds for someone: captured, or authorised and not yet captured. */
function heldBy(order: CardOrderStatus): number {
  return order.state === 'preauthorized' ? order.amount : capturedOf(order);
}

/**
 * Compares one card order with dzpay's record of it. Pure: the clock is an argument.
 * Each discrepancy says the money at stake and whether dzpay fixes it itself.
 */
export function compareOrder(input: ComparisonInput): Comparison {
  const { order, payment, intents, now } = input;
  const withinGrace =
    payment !== null && now.getTime() <= payment.expiresAt.getTime() + LATE_PAYMENT_GRACE_MS;

  if (!payment || (order && payment.cardnetOrderId !== order.orderId)) {
    // A registration in progress: the network has the order, the row does not say so yet.
    if (payment && payment.cardnetOrderId === null && isOpen(payment.status) && withinGrace) {
      return inFlight('an attempt whose registration is under way');
    }
    const held = order ? heldBy(order) : 0;
    if (held === 0) return compared([]);
    const whose = payment
      ? `its udf1 names payment ${payment.id}, whose order is ${payment.cardnetOrderId ?? 'none'}`
      : 'no dzpay payment has it';
    return compared([
      alarm('orphan-order', held, null, held, `the order holds money and ${whose}`),
    ]);
  }

  if (isOpen(payment.status)) {
    if (withinGrace)
      return inFlight('an open attempt inside its window and the late-payment grace');
    const held = order ? heldBy(order) : 0;
    return compared([
      alarm(
        'undecided-attempt',
        held,
        null,
        order?.amount ?? null,
        `still ${payment.status} past its window and the late-payment grace; settlement has not decided it`,
      ),
    ]);
  }
  if (intents.some((intent) => intent.state === 'requested')) {
    return inFlight('a refund whose outcome is not known yet');
  }
  if (payment.status === 'failed' && payment.refundDue) {
    return inFlight('refund due: the sweeper returns what the order holds');
  }

  const found: Discrepancy[] = [];
  if (payment.status === 'failed' && order) {
    const captured = capturedOf(order);
    if (captured > 0) {
      found.push({
        kind: 'captured-for-failed',
        amount: captured,
        dzpayAmount: 0,
        networkAmount: captured,
        fix: 'refund-due',
        detail: `the payment failed but its order holds ${captured} centimes and no refund was due`,
      });
    } else if (isPayable(order.state)) {
      if (withinGrace)
        return inFlight('a failed attempt whose order is inside the late-payment grace');
      found.push({
        kind: 'payable-after-failure',
        amount: order.amount,
        dzpayAmount: 0,
        networkAmount: order.amount,
        fix: 'refund-due',
        detail: `the payment failed but its order is still ${order.state} past the late-payment grace`,
      });
    }
  }

  const paid = payment.status === 'success' || payment.status === 'refunded';
  const deposited = order !== null && (order.state === 'deposited' || order.state === 'refunded');
  if (paid && !deposited) {
    found.push(
      alarm(
        'success-without-deposit',
        payment.total - payment.refundedAmount,
        payment.total,
        order?.amount ?? null,
        order
          ? `dzpay says ${payment.status}, the order is ${order.state}`
          : `dzpay says ${payment.status}, the network has no such order`,
      ),
    );
  }
  // A failed payment's order that holds money is captured-for-failed whatever its
  // amount: the amounts matter where dzpay counts the money as paid.
  if (paid && order && order.amount !== payment.total) {
    found.push(
      alarm(
        'amount-mismatch',
        Math.abs(order.amount - payment.total),
        payment.total,
        order.amount,
        `the payment's total is ${payment.total} centimes, its order's amount ${order.amount}`,
      ),
    );
  }

  if (order) {
    const beyond = unexplainedRefunded(order, intents);
    if (beyond > 0) {
      found.push(
        alarm(
          'refunded-beyond-intents',
          beyond,
          order.refundedAmount - beyond,
          order.refundedAmount,
          `the network refunded ${beyond} centimes more than dzpay asked`,
        ),
      );
    }
    const succeeded = intents
      .filter((intent) => intent.state === 'succeeded')
      .reduce((sum, intent) => sum + intent.amount, 0);
    const recorded = Math.max(payment.refundedAmount, succeeded);
    if (recorded > order.refundedAmount) {
      found.push(
        alarm(
          'refunded-less-than-recorded',
          recorded - order.refundedAmount,
          recorded,
          order.refundedAmount,
          `dzpay recorded ${recorded} centimes refunded, the network shows ${order.refundedAmount}`,
        ),
      );
    }
  }
  return compared(found);
}

function inFlight(why: string): Comparison {
  return { kind: 'in-flight', why };
}

function compared(discrepancies: Discrepancy[]): Comparison {
  return { kind: 'compared', discrepancies };
}

function alarm(
  kind: DiscrepancyKind,
  amount: number,
  dzpayAmount: number | null,
  networkAmount: number | null,
  detail: string,
): Discrepancy {
  return { kind, amount, dzpayAmount, networkAmount, fix: null, detail };
}
