import {
  DeliveriesResponse,
  DeliveryResponse,
  EmailReceiptBody,
  PaymentResponse,
  RefundPendingResponse,
  RefundResponse,
  ReceiptEmailResponse,
  RefundPaymentBody,
  RegisterPaymentBody,
  RegisterPaymentResponse,
  SetQrConfigBody,
  SetQrConfigResponse,
  StatusResponse,
  UnsetQrConfigBody,
  type ErrorCode,
} from '@dzpay/contracts';
import type { z } from 'zod';
import { examples } from './examples.ts';
import { internal, rateLimited, unauthorized, unavailable } from './common-responses.ts';
import { BACK_OFFICE_PAYMENTS_OPERATIONS } from './back-office-payments.ts';
import { BACK_OFFICE_QR_OPERATIONS } from './back-office-qr.ts';
import { BACK_OFFICE_REPORT_OPERATIONS } from './back-office-report.ts';
import { BACK_OFFICE_WEBHOOKS_OPERATIONS } from './back-office-webhooks.ts';

/** A response of an operation: a JSON schema with its example, an HTML page, or nothing. */
export type ResponseSpec =
  | { description: string; json: z.ZodType; example: unknown }
  | { description: string; errors: readonly ErrorCode[] }
  | { description: string; shape: 'validation-list' | 'rate-limit' }
  | { description: string; html: true }
  | { description: string; redirect: true }
  | { description: string; empty: true }
  /** A body of another media type: CSV, SVG, PNG. */
  | { description: string; media: readonly string[] };

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI path, parameters in braces. */
  path: string;
  operationId: string;
  tag:
    | 'QR configuration'
    | 'QR codes'
    | 'Payments'
    | 'Reports'
    | 'Receipts'
    | 'Webhooks'
    | 'Webhook settings'
    | 'Events'
    | 'Status'
    | 'Payer pages';
  summary: string;
  description?: string;
  /** Authenticated with x-api-key. */
  apiKey: boolean;
  idempotent?: boolean;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: { schema: z.ZodType; example: unknown; required?: boolean } | { form: string };
  responses: Record<number, ResponseSpec>;
}

const page = (description: string) => ({ description, html: true }) as const;

/** Every public route of the gateway, as the OpenAPI document describes it. */
export const OPERATIONS: readonly OperationSpec[] = [
  ...BACK_OFFICE_PAYMENTS_OPERATIONS,
  ...BACK_OFFICE_WEBHOOKS_OPERATIONS,
  ...BACK_OFFICE_QR_OPERATIONS,
  ...BACK_OFFICE_REPORT_OPERATIONS,
  {
    method: 'post',
    path: '/set-qr-config',
    operationId: 'setQrConfig',
    tag: 'QR configuration',
    summary: 'Attach DZD amounts to a static QR code',
    description:
      'Replaces the whole configuration of the QR code. Amounts are DZD with at most two decimals; one amount is shown directly, several let the payer choose.',
    apiKey: true,
    body: { schema: SetQrConfigBody, example: examples.setQrConfig },
    responses: {
      200: {
        description: 'configuration set',
        json: SetQrConfigResponse,
        example: { statusCode: 200, message: 'QR configuration set successfully' },
      },
      400: {
        description: 'the body fails validation: one message per rule',
        shape: 'validation-list',
      },
      401: unauthorized,
      404: {
        description: 'no QR code with this token for the key',
        errors: ['QR_CODE404_NOT_FOUND'],
      },
      429: rateLimited,
      500: internal,
      503: unavailable('qr-config'),
    },
  },
  {
    method: 'post',
    path: '/un-set-qr-config',
    operationId: 'unsetQrConfig',
    tag: 'QR configuration',
    summary: 'Remove the amounts of a static QR code',
    apiKey: true,
    body: { schema: UnsetQrConfigBody, example: examples.unsetQrConfig },
    responses: {
      204: { description: 'configuration removed (also when there was none)', empty: true },
      400: { description: 'the body fails validation', shape: 'validation-list' },
      401: unauthorized,
      404: {
        description: 'no QR code with this token for the key',
        errors: ['QR_CODE404_NOT_FOUND'],
      },
      429: rateLimited,
      500: internal,
      503: unavailable('qr-config'),
    },
  },
  {
    method: 'get',
    path: '/partner/payments/v1/{reference}/status',
    operationId: 'getReferenceStatus',
    tag: 'Status',
    summary: 'Whether a product reference is locked or paid',
    description:
      'Read-only: for reconciliation when a webhook was missed, and before releasing a product.',
    apiKey: true,
    params: { reference: 'the product reference, 1 to 255 characters, URL-encoded' },
    responses: {
      200: {
        description: 'the reference and its stage',
        json: StatusResponse,
        example: examples.status,
      },
      400: {
        description: 'the reference is empty or longer than 255 characters',
        errors: ['VALIDATION400'],
      },
      401: {
        description: 'the key is absent, empty, sent twice, unknown, or its merchant is gone',
        errors: ['PARTNER_API401_UNAUTHORIZED'],
      },
      403: {
        description: "the key's merchant account is not active",
        errors: ['PARTNER_API403_MERCHANT_INACTIVE'],
      },
      429: { description: 'more than 60 requests a minute; safe to retry', shape: 'rate-limit' },
      500: internal,
      503: unavailable('status'),
    },
  },
  {
    method: 'post',
    path: '/api/v1/payments',
    operationId: 'registerPayment',
    tag: 'Payments',
    summary: 'Register a hosted-checkout payment',
    description:
      'Amounts in integer centimes. Answers the one-time checkout link; the payment window is 15 minutes. `fees` is whole DZD, `total` centimes.',
    apiKey: true,
    idempotent: true,
    body: { schema: RegisterPaymentBody, example: examples.registerPayment },
    responses: {
      201: {
        description: 'payment registered',
        json: RegisterPaymentResponse,
        example: examples.registeredPayment,
      },
      400: {
        description:
          'a field is missing or malformed, the amount is out of range, the currency unsupported, or metadata too large',
        errors: [
          'VALIDATION400_BAD_REQUEST',
          'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
          'PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY',
          'VALIDATION422_UNPROCESSABLE_ENTITY',
        ],
      },
      401: unauthorized,
      409: {
        description: 'the reference was used already, or the Idempotency-Key with another body',
        errors: ['PAYMENT_INSTANCE409_DUPLICATE_REFERENCE', 'IDEMPOTENCY409_KEY_REUSED'],
      },
      422: {
        description: 'the merchant has no wallet to settle into',
        errors: ['SETTLEMENT422_MERCHANT_WALLET_MISSING'],
      },
      429: rateLimited,
      500: internal,
      502: {
        description: 'the card network is unavailable; retry with a new reference',
        errors: ['CARDNET502_REGISTRATION_FAILED'],
      },
      503: unavailable('payments'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/payments/{id}',
    operationId: 'getPayment',
    tag: 'Payments',
    summary: 'Read a payment',
    apiKey: true,
    params: { id: 'the payment id (UUID)' },
    responses: {
      200: { description: 'the payment', json: PaymentResponse, example: examples.payment },
      401: unauthorized,
      404: {
        description: "no such payment for the key's merchant and mode",
        errors: ['PAYMENT_INSTANCE404_NOT_FOUND'],
      },
      429: rateLimited,
      500: internal,
      503: unavailable('payments'),
    },
  },
  {
    method: 'post',
    path: '/api/v1/payments/{id}/refund',
    operationId: 'refundPayment',
    tag: 'Payments',
    summary: 'Refund a succeeded payment, wholly or partly',
    apiKey: true,
    idempotent: true,
    params: { id: 'the payment id (UUID)' },
    body: { schema: RefundPaymentBody, example: examples.refund, required: false },
    responses: {
      200: {
        description:
          'refunded (status `refunded`) or partly refunded; `refund` is the refund this request made, or the one its Idempotency-Key names',
        json: RefundResponse,
        example: examples.refunded,
      },
      202: {
        description:
          'asked of the card network, its answer lost: `refund.status` is `pending` and the payment shows `pendingRefundAmount`. dzpay never asks the card network twice for one refund; it reads the outcome from the order. Send the same Idempotency-Key again later (or wait for payment.refunded) to learn it',
        json: RefundPendingResponse,
        example: examples.refundPending,
      },
      400: {
        description: 'the amount is malformed or more than what is left',
        errors: ['VALIDATION400_BAD_REQUEST'],
      },
      401: unauthorized,
      404: {
        description: "no such payment for the key's merchant and mode",
        errors: ['PAYMENT_INSTANCE404_NOT_FOUND'],
      },
      409: {
        description:
          'the payment cannot be refunded, another refund of it is pending at the card network (retry later), or the Idempotency-Key was used with another body',
        errors: [
          'PAYMENT_INSTANCE409_NOT_REFUNDABLE',
          'PAYMENT_INSTANCE409_REFUND_PENDING',
          'IDEMPOTENCY409_KEY_REUSED',
        ],
      },
      429: rateLimited,
      500: internal,
      503: unavailable('payments or the card network'),
    },
  },
  {
    method: 'post',
    path: '/api/v1/payments/{id}/receipt/email',
    operationId: 'emailReceipt',
    tag: 'Receipts',
    summary: 'Email the receipt of a succeeded payment',
    description:
      "In the payment's language unless `language` says otherwise. At most 20 per hour per merchant (configurable).",
    apiKey: true,
    params: { id: 'the payment id (UUID)' },
    body: { schema: EmailReceiptBody, example: examples.receiptEmail },
    responses: {
      200: {
        description: 'the receipt was sent',
        json: ReceiptEmailResponse,
        example: examples.receiptSent,
      },
      400: {
        description: 'the address is invalid or longer than 254 characters',
        errors: ['VALIDATION400_BAD_REQUEST'],
      },
      401: unauthorized,
      404: {
        description: "no such payment for the key's merchant and mode",
        errors: ['PAYMENT_INSTANCE404_NOT_FOUND'],
      },
      409: { description: 'the payment did not succeed', errors: ['RECEIPT409_NOT_AVAILABLE'] },
      429: {
        description: 'the hourly receipt limit is reached; Retry-After says when',
        errors: ['RATE429_LIMIT_EXCEEDED'],
      },
      500: internal,
      502: {
        description: 'the mail server refused; retry later',
        errors: ['RECEIPT502_EMAIL_FAILED'],
      },
      503: unavailable('receipts, payments or Redis'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/payments/{id}/webhooks',
    operationId: 'listPaymentWebhooks',
    tag: 'Webhooks',
    summary: "A payment's webhook deliveries and every attempt",
    apiKey: true,
    params: { id: 'the payment id (UUID)' },
    responses: {
      200: {
        description: 'the deliveries, oldest first (none for an unknown payment)',
        json: DeliveriesResponse,
        example: {
          statusCode: 200,
          message: 'Webhook deliveries',
          data: { deliveries: [examples.delivery] },
        },
      },
      401: unauthorized,
      429: rateLimited,
      500: internal,
      503: unavailable('webhook-dispatcher'),
    },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/deliveries/{id}/replay',
    operationId: 'replayWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Send a webhook again, same event id, a fresh retry schedule',
    apiKey: true,
    params: { id: 'the delivery id (UUID)' },
    responses: {
      200: {
        description: 'scheduled again',
        json: DeliveryResponse,
        example: {
          statusCode: 200,
          message: 'Webhook delivery scheduled again',
          data: { ...examples.delivery, state: 'pending' },
        },
      },
      401: unauthorized,
      404: {
        description: "no such delivery for the key's merchant and mode",
        errors: ['WEBHOOK404_DELIVERY_NOT_FOUND'],
      },
      429: rateLimited,
      500: internal,
      503: unavailable('webhook-dispatcher'),
    },
  },
  // The payer's pages: HTML in ar/fr/en (`?lang=`), no key. Errors are pages too.
  {
    method: 'get',
    path: '/checkout/{token}',
    operationId: 'checkoutPage',
    tag: 'Payer pages',
    summary: 'The hosted checkout page of a payment',
    apiKey: false,
    params: { token: 'the checkout token from checkoutUrl' },
    query: { lang: 'ar, fr or en' },
    responses: {
      200: page('the checkout page, or the result of a finished payment'),
      404: page('an unknown link (CHECKOUT404_NOT_FOUND)'),
    },
  },
  {
    method: 'post',
    path: '/checkout/{token}/pay',
    operationId: 'checkoutPay',
    tag: 'Payer pages',
    summary: "Start paying: redirects to the card network's form",
    apiKey: false,
    params: { token: 'the checkout token' },
    body: { form: 'no fields' },
    responses: {
      303: { description: "to the card network's card form", redirect: true },
      404: page('an unknown link'),
    },
  },
  {
    method: 'get',
    path: '/checkout/return/{paymentId}',
    operationId: 'checkoutReturn',
    tag: 'Payer pages',
    summary: 'Where the card network sends the payer back',
    apiKey: false,
    params: { paymentId: 'the payment id' },
    query: { lang: 'ar, fr or en' },
    responses: {
      303: {
        description: 'to successUrl or failureUrl, with `reference` appended',
        redirect: true,
      },
      200: page('the result, when the merchant gave no URL'),
    },
  },
  {
    method: 'get',
    path: '/pay/{merchantId}',
    operationId: 'productForm',
    tag: 'Payer pages',
    summary: "A form to type a partner's product reference",
    apiKey: false,
    params: { merchantId: 'the merchant id' },
    query: { lang: 'ar, fr or en', mode: 'test or live', reference: 'the reference typed' },
    responses: {
      200: page('the form'),
      303: { description: 'to the reference page', redirect: true },
    },
  },
  {
    method: 'get',
    path: '/pay/{merchantId}/{reference}',
    operationId: 'productPage',
    tag: 'Payer pages',
    summary: "A partner's product, looked up on the partner's server",
    apiKey: false,
    params: { merchantId: 'the merchant id', reference: 'the product reference' },
    query: { lang: 'ar, fr or en', mode: 'test or live' },
    responses: {
      200: page('the product and a pay button'),
      404: page('the partner does not know the reference (PARTNER404_PRODUCT_NOT_FOUND)'),
      409: page('already paid (PARTNER409_ALREADY_PAID) or being paid (REFERENCE409_LOCKED)'),
      503: page('the partner server is unavailable (PARTNER503_UNAVAILABLE)'),
    },
  },
  {
    method: 'post',
    path: '/pay/{merchantId}/{reference}',
    operationId: 'productPay',
    tag: 'Payer pages',
    summary: 'Pay a product: locks the reference and opens a checkout for it',
    apiKey: false,
    params: { merchantId: 'the merchant id', reference: 'the product reference' },
    query: { lang: 'ar, fr or en', mode: 'test or live' },
    body: { form: 'no fields' },
    responses: {
      303: {
        description: 'to the checkout page of the attempt now holding the reference',
        redirect: true,
      },
      409: page('the reference is being paid or was paid'),
    },
  },
  {
    method: 'get',
    path: '/qr/{token}',
    operationId: 'qrPage',
    tag: 'Payer pages',
    summary: 'A static QR code: its amount, or a choice of amounts',
    apiKey: false,
    params: { token: 'the QR code token' },
    query: { lang: 'ar, fr or en' },
    responses: {
      200: page('the amount(s) to pay; nothing to pay for an unknown, empty or expired code'),
    },
  },
  {
    method: 'post',
    path: '/qr/{token}',
    operationId: 'qrPay',
    tag: 'Payer pages',
    summary: 'Pay a QR code amount',
    apiKey: false,
    params: { token: 'the QR code token' },
    query: { lang: 'ar, fr or en' },
    body: { form: '`choice`: the index of the chosen amount' },
    responses: {
      303: {
        description:
          'to the checkout page of the new attempt (back to the code when no amount was chosen)',
        redirect: true,
      },
      409: page('a single-use code being paid'),
    },
  },
];
