import { PAYMENTS_PAGE_MAX, PaymentResponse, PaymentsListResponse } from '@dzpay/contracts';
import { API_KEY_RESPONSES, unavailable } from './common-responses.ts';
import { examples } from './examples.ts';
import type { OperationSpec } from './operations.ts';

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
};

const common = {
  ...API_KEY_RESPONSES,
} as const;
const badFilter = {
  description: 'a filter, the limit or the cursor is malformed: `details.failures` names the field',
  errors: ['VALIDATION400_BAD_REQUEST'],
} as const;

/** The back office's payments routes (issue 14), as the OpenAPI document describes them. */
export const BACK_OFFICE_PAYMENTS_OPERATIONS: readonly OperationSpec[] = [
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
    summary: 'Export the payments the filters match as CSV',
    description:
      "RFC 4180, UTF-8, CRLF, a header row; streamed newest first. Columns: id, created_at, paid_at (ISO 8601 UTC), reference, channel, status, amount/fee/total/refunded in centimes and in DZD (`1500.50`), currency, failure_reason, order_id, approval_code, metadata (JSON). A text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` so spreadsheets never run it as a formula. A malformed filter answers 400 in JSON before any CSV.",
    apiKey: true,
    query: FILTERS,
    responses: {
      200: { description: 'the CSV file (attachment)', media: ['text/csv'] },
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
      'The card order is reversed at the card network first, so a payer on the card form can no longer pay. Ends `cancelled` (webhook `payment.fail` with failureReason `cancelled`). Cancelling a cancelled payment answers it again.',
    apiKey: true,
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
      409: {
        description:
          'the payment is paid, failed, expired or refunded (`details.status`); a payment the card network says was paid is recorded so',
        errors: ['PAYMENT_INSTANCE409_NOT_CANCELLABLE'],
      },
      503: unavailable('payments or the card network'),
    },
  },
];
