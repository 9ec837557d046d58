import {
  DeliveriesResponse,
  DeliveryResponse,
  PaymentResponse,
  ReceiptEmailResponse,
  RefundResponseBody,
  RegisterPaymentResponse,
  SetQrConfigResponse,
  StandardError,
  StatusResponse,
  ValidationList,
  type DeliveryView,
  type EmailReceiptBody,
  type ErrorCode,
  type PaymentsRefundReply,
  type PaymentView,
  type ReceiptEmailResult,
  type RefundPaymentBody,
  type RegisterPaymentBody,
  type RegisteredPayment,
  type SetQrConfigBody,
  type StatusRecord,
  type UnsetQrConfigBody,
} from '@dzpay/contracts';

/** An answer of dzpay that is not a success, with its parsed body. */
export class DzpayError extends Error {
  readonly status: number;
  /** The standard envelope's errorCode; undefined for the validation-list and rate-limit shapes. */
  readonly errorCode: ErrorCode | undefined;
  /** The parsed StandardError or ValidationList, or the raw body when it is neither. */
  readonly body: unknown;
  /** Seconds the server asked to wait (Retry-After), if it did. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, body: unknown, retryAfter: string | null) {
    const standard = StandardError.safeParse(body);
    const list = ValidationList.safeParse(body);
    const message = standard.success
      ? standard.data.message
      : list.success
        ? list.data.message.join('; ')
        : `HTTP ${status}`;
    super(`dzpay answered ${status}: ${message}`);
    this.name = 'DzpayError';
    this.status = status;
    this.errorCode = standard.success ? standard.data.errorCode : undefined;
    this.body = standard.success ? standard.data : list.success ? list.data : body;
    this.retryAfterSeconds = retryAfter === null ? undefined : Number(retryAfter);
  }
}

export interface DzpayClientOptions {
  /** The gateway's base URL, e.g. https://pay.example.dz. */
  baseUrl: string;
  /** A `pk_test_…` or `pk_live_…` key. */
  apiKey: string;
  /** A fetch of one's own (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
}

import { clientTransport } from './transport.ts';
import { backOfficePaymentsMethods } from './back-office-payments.ts';
import { backOfficeQrMethods } from './back-office-qr.ts';
import { backOfficeReportMethods } from './back-office-report.ts';
import { backOfficeWebhooksMethods } from './back-office-webhooks.ts';

/** For POSTs that create or move money: the same key and body answer the first result again. */
export interface IdempotencyOptions {
  idempotencyKey?: string;
}

/**
 * dzpay's merchant API, typed by the contracts: request bodies are the schemas' input
 * types, and every success body is parsed with the schema the gateway answers with, so
 * a response that does not match the contract fails loudly here rather than later.
 */
export function dzpayClient(options: DzpayClientOptions) {
  const transport = clientTransport(options);
  const { call, segment, idempotency } = transport;

  return {
    ...backOfficePaymentsMethods(transport),
    ...backOfficeWebhooksMethods(transport),
    ...backOfficeQrMethods(transport),
    ...backOfficeReportMethods(transport),
    /** POST /set-qr-config: replaces the QR code's amounts (DZD). */
    async setQrConfig(body: SetQrConfigBody): Promise<void> {
      await call('POST', '/set-qr-config', { status: 200, schema: SetQrConfigResponse }, body);
    },
    /** POST /un-set-qr-config. */
    async unsetQrConfig(body: UnsetQrConfigBody): Promise<void> {
      await call('POST', '/un-set-qr-config', { status: 204 }, body);
    },
    /** GET /partner/payments/v1/{reference}/status. */
    async referenceStatus(reference: string): Promise<StatusRecord> {
      const answer = await call('GET', `/partner/payments/v1/${segment(reference)}/status`, {
        status: 200,
        schema: StatusResponse,
      });
      return answer.data;
    },
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
    /** GET /api/v1/payments/{id}/webhooks: the payment's deliveries, oldest first. */
    async paymentWebhooks(id: string): Promise<DeliveryView[]> {
      const answer = await call('GET', `/api/v1/payments/${segment(id)}/webhooks`, {
        status: 200,
        schema: DeliveriesResponse,
      });
      return answer.data.deliveries;
    },
    /** POST /api/v1/webhooks/deliveries/{id}/replay. */
    async replayDelivery(id: string): Promise<DeliveryView> {
      const answer = await call('POST', `/api/v1/webhooks/deliveries/${segment(id)}/replay`, {
        status: 200,
        schema: DeliveryResponse,
      });
      return answer.data;
    },
  };
}

export type DzpayClient = ReturnType<typeof dzpayClient>;
