import {
  CreatePaymentLinkBody,
  PaymentLinkCreatedResponse,
  PaymentLinkResponse,
  PaymentLinksListResponse,
  QrImageQuery,
  PaymentLinksListQuery,
} from '@dzpay/contracts';
import { API_KEY_RESPONSES, PAGE_QUERY, unavailable } from '../shared/common-responses.ts';
import { page, payerPage, type OperationSpec } from '../shared/operation-spec.ts';

const LINK_ID = '5f0c7a8e-3d2b-4c1a-9e8f-7a6b5c4d3e2f';

const link = {
  id: LINK_ID,
  url: 'https://pay.dzpay.example/link/pl_Q2x1c3NlLXBpYW5vLTIwMjY',
  label: 'Cours de piano — décembre',
  amount: 450000,
  minAmount: null,
  maxAmount: null,
  currency: 'DZD',
  singleUse: false,
  expiresAt: '2026-12-31T23:00:00.000Z',
  language: 'fr',
  metadata: { course: 'piano', month: '2026-12' },
  state: 'active',
  paidCount: 3,
  paidAmount: 1350000,
  deactivatedAt: null,
  createdAt: '2026-11-20T09:00:00.000Z',
  updatedAt: '2026-11-20T09:00:00.000Z',
};
const donation = {
  ...link,
  id: '0b8e2f4a-6c1d-4e3f-8a9b-1c2d3e4f5a6b',
  url: 'https://pay.dzpay.example/link/pl_ZG9uLWFzc29jaWF0aW9uLTE',
  label: 'Don à l’association',
  amount: null,
  minAmount: 50000,
  maxAmount: 5000000,
  singleUse: false,
  expiresAt: null,
  metadata: null,
  paidCount: 0,
  paidAmount: 0,
};

const common = { ...API_KEY_RESPONSES, 503: unavailable('payments') } as const;
const notFound = {
  description: 'no payment link of the key’s merchant and mode has this id',
  errors: ['PAYMENT_LINK404_NOT_FOUND'],
} as const;
const idParam = { id: 'the payment link’s id' };

/** The merchant API's payment links and their payer pages, as the OpenAPI document describes them. */
export const PAYMENT_LINKS_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'post',
    path: '/api/v1/payment-links',
    operationId: 'createPaymentLink',
    tag: 'Payment links',
    summary: 'Make a payment link: a page that takes payments without code',
    description:
      'A fixed `amount`, or `minAmount` and `maxAmount` for an amount the payer chooses (integer centimes, within the merchant’s range). `singleUse` links take one successful payment (a refund does not reopen them); others any number until `expiresAt` or until deactivated. Each payment through the link is an ordinary hosted-checkout payment of the key’s mode: reference `link-{id}-{n}`, `paymentLinkId` set, the link’s `metadata`, the same webhooks, status, receipts and refunds. `url` is the payer’s page; `/api/v1/payment-links/{id}/image` its QR code. `label` (the payer page’s title) must not hold bidirectional control characters (U+202A–U+202E, U+2066–U+2069): `VALIDATION400_BAD_REQUEST`. Recorded in the audit log as `payment_link.create`, once per Idempotency-Key: a replay answers the link the key made and is not recorded again.',
    apiKey: true,
    idempotent: true,
    body: {
      schema: CreatePaymentLinkBody,
      example: {
        label: 'Cours de piano — décembre',
        amount: 450000,
        expiresAt: '2026-12-31T23:00:00Z',
        metadata: { course: 'piano', month: '2026-12' },
      },
    },
    responses: {
      201: {
        description: 'the link',
        json: PaymentLinkCreatedResponse,
        example: {
          statusCode: 201,
          message: 'Payment link created',
          data: { ...link, paidCount: 0, paidAmount: 0 },
        },
      },
      400: {
        description:
          'a field is missing or malformed (details.failures), the expiry is not ahead, an amount is outside the merchant’s range, or metadata is over 4 KB',
        errors: [
          'VALIDATION400_BAD_REQUEST',
          'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
          'VALIDATION422_UNPROCESSABLE_ENTITY',
        ],
      },
      409: {
        description: 'the Idempotency-Key was used with another request',
        errors: ['IDEMPOTENCY409_KEY_REUSED'],
      },
      422: {
        description: 'the merchant has no wallet to settle into',
        errors: ['SETTLEMENT422_MERCHANT_WALLET_MISSING'],
      },
      ...common,
    },
  },
  {
    method: 'get',
    path: '/api/v1/payment-links',
    operationId: 'listPaymentLinks',
    tag: 'Payment links',
    summary: 'The payment links of the key’s merchant and mode, newest first',
    description:
      'Paged by an opaque cursor. `state` is active, expired, deactivated or used (a single-use link paid); `paidCount` and `paidAmount` (centimes) count its succeeded payments. A link’s payments: `GET /api/v1/payments?paymentLinkId={id}`.',
    apiKey: true,
    query: PAGE_QUERY,
    querySchema: PaymentLinksListQuery,
    responses: {
      200: {
        description: 'a page of links',
        json: PaymentLinksListResponse,
        example: {
          statusCode: 200,
          message: 'Payment links',
          data: { links: [donation, link], nextCursor: null },
        },
      },
      400: {
        description: 'a query parameter is invalid: details.failures names it',
        errors: ['VALIDATION400_BAD_REQUEST'],
      },
      ...common,
    },
  },
  {
    method: 'get',
    path: '/api/v1/payment-links/{id}',
    operationId: 'getPaymentLink',
    tag: 'Payment links',
    summary: 'One payment link, with its state and what was paid through it',
    apiKey: true,
    params: idParam,
    responses: {
      200: {
        description: 'the link',
        json: PaymentLinkResponse,
        example: { statusCode: 200, message: 'Payment link found', data: link },
      },
      404: notFound,
      ...common,
    },
  },
  {
    method: 'post',
    path: '/api/v1/payment-links/{id}/deactivate',
    operationId: 'deactivatePaymentLink',
    tag: 'Payment links',
    summary: 'Stop a payment link from taking payments',
    description:
      'For good: its page then says the link is no longer active, and paying it answers `PAYMENT_LINK410_DEACTIVATED`. A payment already opened through it goes on. Deactivating again answers the link as it is, and is not recorded again. Recorded in the audit log as `payment_link.deactivate`.',
    apiKey: true,
    params: idParam,
    responses: {
      200: {
        description: 'the link, deactivated',
        json: PaymentLinkResponse,
        example: {
          statusCode: 200,
          message: 'Payment link deactivated',
          data: {
            ...link,
            state: 'deactivated',
            deactivatedAt: '2026-11-25T16:00:00.000Z',
            updatedAt: '2026-11-25T16:00:00.000Z',
          },
        },
      },
      404: notFound,
      ...common,
    },
  },
  {
    method: 'get',
    path: '/api/v1/payment-links/{id}/image',
    operationId: 'paymentLinkImage',
    tag: 'Payment links',
    summary: 'The QR code of the link’s url, to print or show',
    description:
      'SVG by default; format=png (or an Accept header preferring image/png) for a PNG of size pixels. A link’s image never changes: cached for ever, with a strong ETag.',
    apiKey: true,
    params: idParam,
    query: {
      format: 'svg (default) or png',
      size: 'PNG width and height in pixels, 128 to 1024 (default 512)',
    },
    querySchema: QrImageQuery,
    responses: {
      200: { description: 'the image', media: ['image/svg+xml', 'image/png'] },
      304: { description: 'the ETag in If-None-Match is current', empty: true },
      400: {
        description: 'format or size is invalid',
        errors: ['VALIDATION400_BAD_REQUEST'],
      },
      404: notFound,
      ...common,
    },
  },
  payerPage({
    method: 'get',
    path: '/link/{token}',
    operationId: 'paymentLinkPage',
    summary: 'A payment link’s page: the amount (or a box for it) and the pay button',
    params: { token: 'the public token from the link’s url' },
    query: { lang: 'ar, fr or en (default: the link’s language)' },
    responses: {
      200: page('the page'),
      404: page('no such link (`PAYMENT_LINK404_NOT_FOUND`)'),
      409: page(
        'a single-use link paid (`PAYMENT_LINK409_ALREADY_PAID`), or being paid by another payer now (`PAYMENT_LINK409_BEING_PAID`, with when to retry)',
      ),
      410: page(
        'an expired or deactivated link (`PAYMENT_LINK410_EXPIRED`, `PAYMENT_LINK410_DEACTIVATED`)',
      ),
    },
  }),
  payerPage({
    method: 'post',
    path: '/link/{token}',
    operationId: 'paymentLinkPay',
    summary: 'Pay through the link: makes the payment and redirects to its checkout',
    params: { token: 'the public token' },
    query: { lang: 'ar, fr or en' },
    body: { form: '`amount` in DZD (`1500.50`) when the payer chooses it; nothing otherwise' },
    responses: {
      303: { description: 'to the payment’s checkout page (its checkoutUrl)', redirect: true },
      400: page('the amount is missing or outside the link’s bounds: the page again, saying so'),
      404: page('no such link'),
      409: page('a single-use link paid, or being paid'),
      410: page('an expired or deactivated link'),
    },
  }),
  payerPage({
    method: 'get',
    path: '/link/{token}/qr',
    operationId: 'paymentLinkQr',
    summary: 'The QR code of a link’s page, shown on it',
    params: { token: 'the public token' },
    query: { format: 'svg (default) or png' },
    responses: {
      200: { description: 'the image', media: ['image/svg+xml', 'image/png'] },
      404: page('a token no link can have'),
    },
  }),
];
