import type { LedgerOrder, PaymentRow, WebhookSeen } from '../oracle/evidence.ts';

/** Small crafted evidence for the oracle's unit tests: instants as seconds after T0. */

const T0 = Date.parse('2030-03-01T10:00:00.000Z');
/** T0 + `seconds`, epoch milliseconds. */
export const t = (seconds: number) => T0 + seconds * 1000;
export const date = (seconds: number) => new Date(t(seconds));
export const isoAt = (seconds: number) => date(seconds).toISOString();

export const MERCHANT = '0a6d1c1e-0000-4000-8000-000000000001';
export const OTHER_MERCHANT = '0a6d1c1e-0000-4000-8000-000000000002';

/** A product attempt of MERCHANT for `P0-1`, 1 500,50 DZD (fee 50 DZD), created at T0. */
export function payment(id: string, overrides: Partial<PaymentRow> = {}): PaymentRow {
  return {
    id,
    merchant_id: MERCHANT,
    mode: 'test',
    channel: 'AGENCY',
    reference: 'P0-1',
    reference_kind: 'product',
    epoch: 0,
    status: 'pending',
    amount: 150_050,
    total: 155_050,
    currency: 'DZD',
    cardnet_order_id: null,
    refunded_amount: 0,
    refund_due: false,
    locks_reference: true,
    awaiting_verdict: false,
    failure_reason: null,
    expires_at: date(20),
    paid_at: null,
    created_at: date(0),
    updated_at: date(0),
    ...overrides,
  };
}

/** A payment paid at `paidAt` seconds, its order `order-{id}` deposited then. */
export function paid(id: string, paidAt: number, overrides: Partial<PaymentRow> = {}): PaymentRow {
  return payment(id, {
    status: 'success',
    cardnet_order_id: `order-${id}`,
    paid_at: date(paidAt),
    updated_at: date(paidAt),
    ...overrides,
  });
}

/** An order of the ledger for `paymentId`: registered at T0, then the given operations. */
export function order(
  paymentId: string,
  overrides: Partial<LedgerOrder> = {},
  operations: LedgerOrder['operations'] = [],
): LedgerOrder {
  return {
    orderId: `order-${paymentId}`,
    amount: 155_050,
    status: 0,
    refundedAmount: 0,
    udf1: paymentId,
    refunds: [],
    operations: [
      { operation: 'register', at: isoAt(0), orderStatus: 0, amount: 155_050 },
      ...operations,
    ],
    ...overrides,
  };
}

/** An order deposited at `seconds`. */
export function depositedOrder(
  paymentId: string,
  seconds: number,
  overrides: Partial<LedgerOrder> = {},
) {
  return order(paymentId, { status: 2, ...overrides }, [
    { operation: 'pay', at: isoAt(seconds), orderStatus: 2 },
  ]);
}

/** An order deposited at `paidAt`, then refunded in full at `refundedAt`. */
export function refundedOrder(paymentId: string, paidAt: number, refundedAt: number): LedgerOrder {
  return order(
    paymentId,
    {
      status: 4,
      refundedAmount: 155_050,
      refunds: [{ amount: 155_050, at: isoAt(refundedAt), referenceNumber: '000000000001' }],
    },
    [
      { operation: 'pay', at: isoAt(paidAt), orderStatus: 2 },
      {
        operation: 'refund',
        at: isoAt(refundedAt),
        orderStatus: 4,
        amount: 155_050,
        referenceNumber: '000000000001',
      },
    ],
  );
}

/** The body dzpay sends for `row` (docs/webhooks.md), as the partner's SDK hands it over. */
export function webhookOf(
  row: PaymentRow,
  type: 'payment.success' | 'payment.fail' | 'payment.refunded',
  overrides: Partial<WebhookSeen['event']['data']> = {},
  id = `event-${type}-${row.id}`,
): WebhookSeen {
  return {
    merchant: row.merchant_id === MERCHANT ? 0 : 1,
    at: t(30),
    event: {
      id,
      type,
      createdAt: isoAt(30),
      data: {
        paymentId: row.id,
        reference: row.reference,
        channel: row.channel,
        amount: row.amount / 100,
        currency: 'DZD',
        status: type === 'payment.fail' ? 'failed' : 'success',
        orderId: row.cardnet_order_id,
        paidAt: type === 'payment.fail' ? null : (row.paid_at?.toISOString() ?? null),
        failureReason: type === 'payment.fail' ? row.failure_reason : null,
        ...overrides,
      },
    },
  };
}
