import type { PaymentStatus } from '@dzpay/contracts';
import type { PaymentRecord } from '../domain/payment-record.ts';

export type Row = Record<string, unknown>;

/** Columns a state change may set, in record (camelCase) names. */
export type PaymentPatch = Partial<
  Pick<
    PaymentRecord,
    | 'status'
    | 'failureReason'
    | 'cardnetOrderId'
    | 'cardnetFormUrl'
    | 'approvalCode'
    | 'maskedPan'
    | 'actionCode'
    | 'refundedAmount'
    | 'refundDue'
    | 'awaitingVerdict'
    | 'reverseAskedAt'
    | 'paidAt'
  >
>;

const COLUMNS: Record<keyof PaymentPatch, string> = {
  status: 'status',
  failureReason: 'failure_reason',
  cardnetOrderId: 'cardnet_order_id',
  cardnetFormUrl: 'cardnet_form_url',
  approvalCode: 'approval_code',
  maskedPan: 'masked_pan',
  actionCode: 'action_code',
  refundedAmount: 'refunded_amount',
  refundDue: 'refund_due',
  awaitingVerdict: 'awaiting_verdict',
  reverseAskedAt: 'reverse_asked_at',
  paidAt: 'paid_at',
};

export function toColumns(patch: PaymentPatch): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(patch).map(([field, value]) => [COLUMNS[field as keyof PaymentPatch], value]),
  );
}

export function toRecord(row: Row): PaymentRecord {
  return {
    id: row.id as string,
    merchantId: row.merchant_id as string,
    mode: row.mode as PaymentRecord['mode'],
    channel: row.channel as PaymentRecord['channel'],
    reference: row.reference as string,
    referenceKind: row.reference_kind as PaymentRecord['referenceKind'],
    epoch: row.epoch as number,
    merchantName: row.merchant_name as string,
    amount: row.amount as number,
    fee: row.fee as number,
    total: row.total as number,
    currency: row.currency as string,
    language: row.language as PaymentRecord['language'],
    status: row.status as PaymentStatus,
    failureReason: (row.failure_reason as string | null) ?? null,
    successUrl: (row.success_url as string | null) ?? null,
    failureUrl: (row.failure_url as string | null) ?? null,
    metadata: (row.metadata as Record<string, unknown> | null) ?? null,
    orderNumber: row.order_number as string,
    cardnetOrderId: (row.cardnet_order_id as string | null) ?? null,
    cardnetFormUrl: (row.cardnet_form_url as string | null) ?? null,
    approvalCode: (row.approval_code as string | null) ?? null,
    maskedPan: (row.masked_pan as string | null) ?? null,
    actionCode: (row.action_code as number | null) ?? null,
    refundedAmount: row.refunded_amount as number,
    pendingRefund: (row.pending_refund as number | undefined) ?? 0,
    refundDue: row.refund_due as boolean,
    locksReference: row.locks_reference as boolean,
    awaitingVerdict: row.awaiting_verdict as boolean,
    reverseAskedAt: (row.reverse_asked_at as Date | null | undefined) ?? null,
    productLabel: (row.product_label as string | null) ?? null,
    sweepFailures: (row.sweep_failures as number | undefined) ?? 0,
    version: row.version as number,
    expiresAt: row.expires_at as Date,
    paidAt: (row.paid_at as Date | null) ?? null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
    // Only payments made through a payment link carry it (their views show paymentLinkId).
    ...(row.payment_link_id ? { paymentLinkId: row.payment_link_id as string } : {}),
  };
}
