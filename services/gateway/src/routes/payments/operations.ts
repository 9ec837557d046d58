import {
  EmailReceiptBody,
  PaymentResponse,
  PAYMENTS_PAGE_MAX,
  PaymentsExportQuery,
  PaymentsListQuery,
  PaymentsListResponse,
  ReceiptEmailResponse,
  RefundPaymentBody,
  RefundPendingResponse,
  RefundResponse,
  RegisterPaymentBody,
  RegisterPaymentResponse,
} from '@dzpay/contracts';
import {
  API_KEY_RESPONSES,
  internal,
  rateLimited,
  unauthorized,
  unavailable,
} from '../shared/common-responses.ts';
import { examples } from '../shared/openapi-examples.ts';
import type { OperationSpec } from '../shared/operation-spec.ts';

/** A cancelled payment as the merchant API answers it: the paid example's, never paid. */
const cancelledPayment = {
  ...examples.payment.data,
  status: 'cancelled',
  approvalCode: null,
  maskedPan: null,
  failureReason: 'cancelled',
  paidAt: null,
  updatedAt: '2026-11-21T10:04:40.000Z',
};

const FILTERS: Record<string, string> = {
  status:
    'created, processing, success, failed, expired, cancelled or refunded (`created` is not paid yet; `expired` and `cancelled` are failures for those reasons)',
  channel: 'CHECKOUT or AGENCY',
  reference: 'exactly this reference',
  referencePrefix: 'references starting with this text (`%` and `_` are plain characters)',
  createdFrom: 'created at or after (ISO 8601 with offset, or YYYY-MM-DD for midnight UTC)',
  createdTo: 'created before (exclusive; same formats)',
  metadataKey: 'with metadataValue: payments whose metadata has this key…',
  metadataValue: '…with this string value (`metadata @> {key: value}`)',
  paymentLinkId: 'the payments of this payment link (its `id`)',
};

const common = {
  ...API_KEY_RESPONSES,
} as const;
const badFilter = {
  description: 'a filter, the limit or the cursor is malformed: `details.failures` names the field',
  errors: ['VALIDATION400_BAD_REQUEST'],
} as const;

/** The payments operations of the merchant API, as the OpenAPI document describes them. */
export const PAYMENTS_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'post',
    path: '/api/v1/payments',
    operationId: 'registerPayment',
    tag: 'Payments',
    summary: 'Register a hosted-checkout payment',
    description:
      'Amounts in integer centimes. Answers the one-time checkout link; the payment window is 15 minutes. `fees` is whole DZD, `total` centimes. With a live key (`pk_live_`), `successUrl` and `failureUrl` must be `https` URLs without a user or password, to a public host: not localhost, a single-label, `.local`, `home.arpa` or `.internal` name, nor a loopback, private, link-local or other special-purpose IP address. A test key also accepts `http` and localhost. `reference` must not hold bidirectional control characters (U+202A–U+202E, U+2066–U+2069), which would reorder it where merchants read it: `VALIDATION400_BAD_REQUEST`.',
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
          'a field is missing or malformed (with a live key, also a successUrl or failureUrl that is not https on a public host), the amount is out of range, the currency unsupported, or metadata too large',
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
    path: '/api/v1/payments',
    operationId: 'listPayments',
    tag: 'Payments',
    summary: "List the key's payments, newest first",
    description:
      'Keyset pages: pass `nextCursor` back as `cursor` for the next (older) page; `null` on the last. Pages stay stable while new payments arrive. `fees` is whole DZD, amounts centimes.',
    apiKey: true,
    query: {
      limit: `1 to ${PAYMENTS_PAGE_MAX} (default 20)`,
      cursor: 'the `nextCursor` of the previous page',
      ...FILTERS,
    },
    querySchema: PaymentsListQuery,
    responses: {
      200: {
        description: 'one page',
        json: PaymentsListResponse,
        example: {
          statusCode: 200,
          message: 'Payments found',
          data: {
            payments: [{ ...cancelledPayment, channel: 'CHECKOUT' }],
            nextCursor: 'MTc5NTI2MDQwMDAwMDAwMDozZjFjMmI5ZS03YTQxLTRkMGItOWM1NS0yZThmNmExZDRiNzA',
          },
        },
      },
      400: badFilter,
      ...common,
      503: unavailable('payments'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/payments/export',
    operationId: 'exportPayments',
    tag: 'Payments',
    summary: 'Export the payments the filters match as CSV or XLSX',
    description:
      "RFC 4180, UTF-8, CRLF, a header row; streamed newest first. Columns: id, created_at, paid_at (ISO 8601 UTC), reference, channel, status, amount/fee/total/refunded in centimes and in DZD (`1500.50`), currency, failure_reason, order_id, approval_code, metadata (JSON). A text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` so spreadsheets never run it as a formula. A malformed filter answers 400 in JSON before any CSV. `format=xlsx` answers an Excel workbook instead: a `Payments` sheet (the same payments, amounts as DZD numbers shown with two decimals, times as dates on Algiers' clock, text never read as a formula) ending with a `total (paid)` row (the paid payments: their number, amount, fee, total and refunded), and a `Totals` sheet (payments, paid payments, amount paid, fees, total charged, refunded, net = total charged − fees − refunded, as the daily report counts it).",
    apiKey: true,
    query: {
      ...FILTERS,
      format: '`csv` (default) or `xlsx` (an Excel workbook; `dialect` does not apply)',
      dialect:
        "`standard` (default: commas, decimal points, UTC timestamps) or `spreadsheet` for an accountant's French or Arabic Excel: a UTF-8 byte-order mark, semicolons, decimal commas (`1500,50`), timestamps in Algiers time with their offset (`2026-11-20T11:02:00+01:00`)",
    },
    querySchema: PaymentsExportQuery,
    responses: {
      200: {
        description: 'the CSV file or the XLSX workbook (attachment)',
        media: ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      },
      400: badFilter,
      ...common,
      503: unavailable('payments'),
    },
  },
  {
    method: 'post',
    path: '/api/v1/payments/{id}/cancel',
    operationId: 'cancelPayment',
    tag: 'Payments',
    summary: 'Cancel a hosted-checkout payment not paid yet',
    description:
      'The card order is reversed at the card network first, so a payer on the card form can no longer pay. Ends `cancelled` (webhook `payment.fail` with failureReason `cancelled`). Cancelling a cancelled payment answers it again. Recorded in the audit log as `payment.cancel` once: a cancel answered again (by its Idempotency-Key, or of a payment already cancelled) is not recorded again.',
    apiKey: true,
    idempotent: true,
    params: { id: 'the payment id (UUID)' },
    responses: {
      200: {
        description: 'the cancelled payment',
        json: PaymentResponse,
        example: { statusCode: 200, message: 'Payment cancelled', data: cancelledPayment },
      },
      ...common,
      404: {
        description: "no such hosted-checkout payment for the key's merchant and mode",
        errors: ['PAYMENT_INSTANCE404_NOT_FOUND'],
      },
      400: {
        description: 'the Idempotency-Key header is empty, repeated or over 255 characters',
        errors: ['VALIDATION400_BAD_REQUEST'],
      },
      409: {
        description:
          'the payment is paid, failed, expired or refunded (`details.status`; a payment the card network says was paid is recorded so), or the Idempotency-Key was used with another request',
        errors: ['PAYMENT_INSTANCE409_NOT_CANCELLABLE', 'IDEMPOTENCY409_KEY_REUSED'],
      },
      503: unavailable('payments or the card network'),
    },
  },
];
