import { centimesToDzd } from '@dzpay/contracts';
import type {
  Language,
  Mode,
  ReferenceKind,
  PaymentEvent,
  PaymentEventType,
  PaymentStatus,
  PaymentView,
} from '@dzpay/contracts';
import { checkoutStatusOf } from './checkout-status.ts';

/** A payment attempt as payments stores it (amounts in centimes). */
export interface PaymentRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  channel: 'CHECKOUT' | 'AGENCY';
  reference: string;
  /** What the reference names: an order (CHECKOUT), a product or a QR token (AGENCY). */
  referenceKind: ReferenceKind;
  /** The sale: 0 for an order or a product, the configuration version for a QR code. */
  epoch: number;
  merchantName: string;
  amount: number;
  fee: number;
  total: number;
  currency: string;
  language: Language;
  status: PaymentStatus;
  failureReason: string | null;
  successUrl: string | null;
  failureUrl: string | null;
  metadata: Record<string, unknown> | null;
  orderNumber: string;
  cardnetOrderId: string | null;
  cardnetFormUrl: string | null;
  approvalCode: string | null;
  maskedPan: string | null;
  actionCode: number | null;
  refundedAmount: number;
  /** Centimes of the open refund intent (asked, outcome unknown); 0 without one. */
  pendingRefund: number;
  /** The card network may hold money for this failed attempt: the sweeper checks it. */
  refundDue: boolean;
  /** AGENCY: this attempt holds its reference (product, or single-use QR) while in flight. */
  locksReference: boolean;
  /** The card network holds the order and its verdict is awaited: the lock has no expiry. */
  awaitingVerdict: boolean;
  /**
   * When a cancel sent reverse.do for the order without learning its outcome; the
   * reversal may still land, so a deposit is not a success until it no longer can.
   */
  reverseAskedAt: Date | null;
  /** AGENCY: what the partner calls the product, shown to the payer. */
  productLabel: string | null;
  /** Sweeper passes in a row that failed to decide it (its backoff). */
  sweepFailures: number;
  /**
   * Counts the row's changes (a trigger, migration 010): of two states of the payment,
   * the later commit has the higher version. Absent only before the row is written.
   */
  version?: number;
  expiresAt: Date;
  paidAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** The payment link the payment was made through, if any (payments' payment_link_id). */
  paymentLinkId?: string;
}

export function paymentView(record: PaymentRecord): PaymentView {
  return {
    id: record.id,
    reference: record.reference,
    amount: record.amount,
    // The spec gives the fee in DZD (the merchant configures it in whole dinars).
    fees: centimesToDzd(record.fee),
    total: record.total,
    currency: record.currency,
    language: record.language,
    status: checkoutStatusOf(record.status, record.failureReason),
    expiresAt: record.expiresAt.toISOString(),
    successUrl: record.successUrl,
    failureUrl: record.failureUrl,
    metadata: record.metadata as PaymentView['metadata'],
    orderId: record.cardnetOrderId,
    approvalCode: record.approvalCode,
    maskedPan: record.maskedPan,
    failureReason: record.failureReason,
    refundedAmount: record.refundedAmount,
    pendingRefundAmount: record.pendingRefund,
    paidAt: record.paidAt?.toISOString() ?? null,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    ...(record.paymentLinkId ? { paymentLinkId: record.paymentLinkId } : {}),
  };
}

/** The event that tells the rest of dzpay about the record's new state. */
export function paymentEvent(
  id: string,
  type: PaymentEventType,
  record: PaymentRecord,
  occurredAt: Date,
): PaymentEvent {
  return {
    id,
    type,
    version: 1,
    occurredAt: occurredAt.toISOString(),
    merchantId: record.merchantId,
    mode: record.mode,
    data: {
      paymentId: record.id,
      reference: record.reference,
      channel: record.channel,
      amount: record.amount,
      fees: record.fee, // centimes, like every amount inside dzpay
      total: record.total,
      currency: record.currency,
      status: record.status,
      orderId: record.cardnetOrderId,
      approvalCode: record.approvalCode,
      maskedPan: record.maskedPan,
      failureReason: record.failureReason,
      refundedAmount: record.refundedAmount,
      paidAt: record.paidAt?.toISOString() ?? null,
      metadata: record.metadata as PaymentEvent['data']['metadata'],
      createdAt: record.createdAt.toISOString(),
      referenceKind: record.referenceKind,
      epoch: record.epoch,
      version: record.version,
      ...(record.channel === 'AGENCY'
        ? { lockExpiresAt: lockExpiryOf(record), locksReference: record.locksReference }
        : {}),
    },
  };
}

/**
 * When an AGENCY attempt's hold on its reference ends, as the status endpoint reports
 * it: the end of the window while the payer may still pay, null (held, no expiry) once
 * the card network holds the order and its verdict is awaited, and null when decided.
 */
function lockExpiryOf(record: PaymentRecord): string | null {
  const inFlight = record.status === 'pending' || record.status === 'processing';
  if (!inFlight || !record.locksReference || record.awaitingVerdict) return null;
  return record.expiresAt.toISOString();
}

const EVENT_OF_STATUS = {
  pending: 'payment.created',
  processing: 'payment.processing',
  success: 'payment.succeeded',
  failed: 'payment.failed',
  refunded: 'payment.refunded',
} as const satisfies Record<PaymentRecord['status'], PaymentEventType>;

/**
 * The record's current state as the event of that state tells it, dated by its last
 * change: what `payments.reference.held` answers, so status reads it with the parser of
 * its stream (and its version orders it against the events it already applied).
 */
export function currentStateEvent(id: string, record: PaymentRecord): PaymentEvent {
  return paymentEvent(id, EVENT_OF_STATUS[record.status], record, record.updatedAt);
}
