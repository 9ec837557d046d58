import {
  PaymentResponse,
  PaymentsListResponse,
  type PaymentsFilterQuery,
  type PaymentsListQuery,
  type PaymentsPage,
  type PaymentView,
} from '@dzpay/contracts';
import type { ClientTransport } from './transport.ts';

/** The filters as a query string; absent fields are left out. */
function queryOf(filters: PaymentsListQuery): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters) as [string, string | number | undefined][]) {
    if (value !== undefined) params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The back office's payments methods (issue 14). */
export function backOfficePaymentsMethods(transport: ClientTransport) {
  const { call, raw, segment } = transport;
  return {
    /** GET /api/v1/payments: one page, newest first; pass `nextCursor` back as `cursor`. */
    async listPayments(filters: PaymentsListQuery = {}): Promise<PaymentsPage> {
      const answer = await call('GET', `/api/v1/payments${queryOf(filters)}`, {
        status: 200,
        schema: PaymentsListResponse,
      });
      return answer.data;
    },
    /** GET /api/v1/payments/export: every payment the filters match, as CSV text. */
    async exportPayments(filters: PaymentsFilterQuery = {}): Promise<string> {
      const response = await raw('GET', `/api/v1/payments/export${queryOf(filters)}`);
      return response.text();
    },
    /** POST /api/v1/payments/{id}/cancel: a hosted-checkout payment not paid yet. */
    async cancelPayment(id: string): Promise<PaymentView> {
      const answer = await call('POST', `/api/v1/payments/${segment(id)}/cancel`, {
        status: 200,
        schema: PaymentResponse,
      });
      return answer.data;
    },
  };
}
