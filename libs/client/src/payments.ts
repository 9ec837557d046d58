import {
  PaymentResponse,
  PaymentsListResponse,
  ReceiptEmailResponse,
  RefundResponseBody,
  RegisterPaymentResponse,
  StatusResponse,
  type EmailReceiptBody,
  type PaymentsExportQuery,
  type PaymentsListQuery,
  type PaymentsPage,
  type PaymentsRefundReply,
  type PaymentView,
  type ReceiptEmailResult,
  type RefundPaymentBody,
  type RegisterPaymentBody,
  type RegisteredPayment,
  type StatusRecord,
} from '@dzpay/contracts';
import type { ClientTransport, IdempotencyOptions } from './transport.ts';

/** A merchant's payments: made, read, listed, exported, refunded, cancelled, receipted. */
export function paymentsMethods(transport: ClientTransport) {
  const { call, raw, segment, query, idempotency } = transport;
  return {
    /** POST /api/v1/payments (amounts in centimes). */
    async registerPayment(
      body: RegisterPaymentBody,
      options?: IdempotencyOptions,
    ): Promise<RegisteredPayment> {
      const answer = await call(
        'POST',
        '/api/v1/payments',
        { status: 201, schema: RegisterPaymentResponse },
        body,
        idempotency(options),
      );
      return answer.data;
    },
    /** GET /api/v1/payments/{id}. */
    async getPayment(id: string): Promise<PaymentView> {
      const answer = await call('GET', `/api/v1/payments/${segment(id)}`, {
        status: 200,
        schema: PaymentResponse,
      });
      return answer.data;
    },
    /** GET /partner/payments/v1/{reference}/status. */
    async referenceStatus(reference: string): Promise<StatusRecord> {
      const answer = await call('GET', `/partner/payments/v1/${segment(reference)}/status`, {
        status: 200,
        schema: StatusResponse,
      });
      return answer.data;
    },
    /** GET /api/v1/payments: one page, newest first; pass `nextCursor` back as `cursor`. */
    async listPayments(filters: PaymentsListQuery = {}): Promise<PaymentsPage> {
      const answer = await call('GET', `/api/v1/payments${query(filters)}`, {
        status: 200,
        schema: PaymentsListResponse,
      });
      return answer.data;
    },
    /**
     * GET /api/v1/payments/export: every payment the filters match, as CSV text;
     * `dialect: 'spreadsheet'` for an accountant's Excel in French or Arabic.
     */
    async exportPayments(filters: Omit<PaymentsExportQuery, 'format'> = {}): Promise<string> {
      const response = await raw('GET', `/api/v1/payments/export${query(filters)}`);
      return response.text();
    },
    /**
     * GET /api/v1/payments/export?format=xlsx: the same payments as an Excel workbook's
     * bytes (amounts as DZD numbers, times as Algiers dates, a total of the paid ones).
     */
    async exportPaymentsXlsx(
      filters: Omit<PaymentsExportQuery, 'format' | 'dialect'> = {},
    ): Promise<Uint8Array> {
      const path = `/api/v1/payments/export${query({ ...filters, format: 'xlsx' })}`;
      const response = await raw('GET', path);
      return new Uint8Array(await response.arrayBuffer());
    },
    /**
     * POST /api/v1/payments/{id}/refund: the whole remaining amount unless `amount` says
     * less. `refund.status` is `pending` (HTTP 202) while the card network has not
     * confirmed it: send the same Idempotency-Key again later to learn its outcome.
     */
    async refundPayment(
      id: string,
      body: RefundPaymentBody = {},
      options?: IdempotencyOptions,
    ): Promise<PaymentsRefundReply> {
      const answer = await call(
        'POST',
        `/api/v1/payments/${segment(id)}/refund`,
        { status: [200, 202], schema: RefundResponseBody },
        body,
        idempotency(options),
      );
      return answer.data;
    },
    /** POST /api/v1/payments/{id}/cancel: a hosted-checkout payment not paid yet. */
    async cancelPayment(id: string): Promise<PaymentView> {
      const answer = await call('POST', `/api/v1/payments/${segment(id)}/cancel`, {
        status: 200,
        schema: PaymentResponse,
      });
      return answer.data;
    },
    /** POST /api/v1/payments/{id}/receipt/email. */
    async emailReceipt(id: string, body: EmailReceiptBody): Promise<ReceiptEmailResult> {
      const answer = await call(
        'POST',
        `/api/v1/payments/${segment(id)}/receipt/email`,
        { status: 200, schema: ReceiptEmailResponse },
        body,
      );
      return answer.data;
    },
  };
}
