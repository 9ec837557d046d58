import type { ErrorCode, StandardError } from '@dzpay/contracts';
import { httpStatusOf } from '@dzpay/contracts';

// Examples the OpenAPI document shows. Each is checked against its schema by
// system/openapi.unit.test.ts, so none can drift from what dzpay accepts
// and answers.

const PAYMENT_ID = '2f1c3a52-6a1e-4a55-9d0f-0f4b8a6e2c11';
const AT = '2026-11-21T10:00:00.000Z';

/** A paid payment as the API shows it. */
const PAYMENT_DATA = {
  id: PAYMENT_ID,
  reference: 'ORDER-1042',
  amount: 250_000,
  fees: 50,
  total: 255_000,
  currency: 'DZD',
  language: 'fr',
  expiresAt: '2026-11-21T10:15:00.000Z',
  status: 'success',
  successUrl: 'https://shop.example.dz/merci?cart=42',
  failureUrl: 'https://shop.example.dz/echec',
  metadata: { cartId: 'C-42' },
  orderId: 'b7c0e6a4-5d1f-4c1e-9a7b-3f2e1d0c9b8a',
  approvalCode: '482910',
  // As the card network masks it: the first six and the last four digits.
  maskedPan: '628058**0009',
  failureReason: null,
  refundedAmount: 0,
  pendingRefundAmount: 0,
  paidAt: '2026-11-21T10:03:12.000Z',
  createdAt: AT,
  updatedAt: '2026-11-21T10:03:12.000Z',
} as const;
const REFUND_ID = '9a1d6e2c-4b3f-4e7a-8c5d-1f0e2d3c4b5a';

export const examples = {
  setQrConfig: {
    token: 'QRAY674KF1K1BX34DN2RPY',
    amounts: [1500, 2500.5],
    expiresAt: '2030-12-31T23:00:00Z',
    singleUse: true,
  },
  unsetQrConfig: { token: 'QRAY674KF1K1BX34DN2RPY' },
  registerPayment: {
    amount: 250_000,
    currency: 'DZD',
    reference: 'ORDER-1042',
    successUrl: 'https://shop.example.dz/merci?cart=42',
    failureUrl: 'https://shop.example.dz/echec',
    language: 'fr',
    metadata: { cartId: 'C-42' },
  },
  registeredPayment: {
    statusCode: 201,
    message: 'Payment registered',
    data: {
      id: PAYMENT_ID,
      reference: 'ORDER-1042',
      amount: 250_000,
      fees: 50,
      total: 255_000,
      currency: 'DZD',
      language: 'fr',
      status: 'created',
      expiresAt: '2026-11-21T10:15:00.000Z',
      // The token is 32 random bytes in base64url: 43 characters.
      checkoutUrl: 'https://pay.dzpay.dz/checkout/Qm9uam91ciBkenBheSwgdm9pY2kgdW4gamV0b24gZGU',
    },
  },
  payment: {
    statusCode: 200,
    message: 'Payment found',
    data: PAYMENT_DATA,
  },
  refund: { amount: 100_000 },
  refunded: {
    statusCode: 200,
    message: 'Payment partially refunded',
    data: {
      ...PAYMENT_DATA,
      refundedAmount: 100_000,
      updatedAt: '2026-11-21T11:20:05.000Z',
      refund: { id: REFUND_ID, amount: 100_000, status: 'succeeded' },
    },
  },
  refundPending: {
    statusCode: 202,
    message: 'Refund pending: the card network has not confirmed it yet',
    data: {
      ...PAYMENT_DATA,
      pendingRefundAmount: 100_000,
      updatedAt: '2026-11-21T11:20:05.000Z',
      refund: { id: REFUND_ID, amount: 100_000, status: 'pending' },
    },
  },
  receiptEmail: { email: 'amina@example.dz' },
  receiptSent: {
    statusCode: 200,
    message: 'Receipt email sent',
    data: { sent: true, language: 'fr' },
  },
  status: {
    statusCode: 200,
    message: 'Payment status retrieved',
    data: {
      reference: 'BOOK-42',
      stage: 'paid',
      locked: false,
      paid: true,
      lockReleaseTime: null,
      paymentId: PAYMENT_ID,
      channel: 'AGENCY',
      currency: 'DZD',
      amount: 1500,
      payment: {
        paymentId: PAYMENT_ID,
        status: 'success',
        amount: 1500,
        currency: 'DZD',
        paidAt: '2026-11-21T10:03:12.000Z',
        orderId: 'b7c0e6a4-5d1f-4c1e-9a7b-3f2e1d0c9b8a',
        webhookDelivery: 'success',
        createdAt: AT,
        updatedAt: '2026-11-21T10:03:12.000Z',
      },
    },
  },
  delivery: {
    id: '7d4c2b1a-0f9e-4d8c-b7a6-5f4e3d2c1b0a',
    eventId: 'e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9',
    eventType: 'payment.success',
    paymentId: PAYMENT_ID,
    reference: 'BOOK-42',
    state: 'success',
    attempts: [
      {
        number: 1,
        startedAt: '2026-11-21T10:03:12.500Z',
        statusCode: 500,
        latencyMs: 41,
        responseExcerpt: 'Internal Server Error',
        error: 'HTTP 500',
      },
      {
        number: 2,
        startedAt: '2026-11-21T10:03:17.600Z',
        statusCode: 200,
        latencyMs: 23,
        responseExcerpt: '{"success": true}',
        error: null,
      },
    ],
    nextAttemptAt: null,
    createdAt: '2026-11-21T10:03:12.400Z',
    updatedAt: '2026-11-21T10:03:17.700Z',
  },
  webhookEvent: {
    id: 'e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9',
    type: 'payment.success',
    createdAt: '2026-11-21T10:03:12.000Z',
    data: {
      paymentId: PAYMENT_ID,
      reference: 'BOOK-42',
      channel: 'AGENCY',
      amount: 1500,
      currency: 'DZD',
      status: 'success',
      orderId: 'b7c0e6a4-5d1f-4c1e-9a7b-3f2e1d0c9b8a',
      paidAt: '2026-11-21T10:03:12.000Z',
      metadata: null,
      failureReason: null,
    },
  },
  product: {
    reference: 'BOOK-42',
    amount: 1500,
    currency: 'DZD',
    label: 'Le Petit Prince',
    description: 'Édition de poche',
  },
  partnerError: { error: 'NOT_FOUND', errorMessage: 'no product BOOK-42' },
  validationList: {
    statusCode: 400,
    message: ['token should not be empty', 'amounts must contain at least 1 element'],
    error: 'Bad Request',
  },
} as const;

/** The 429 of a per-key limit, as app.ts's errorResponseBuilder words it. */
export const rateLimitedExample = (perMinute: number) => ({
  statusCode: 429,
  message: `Too many requests: at most ${perMinute} per minute. Retry in 1 minute.`,
});

/** What each error code's example says, and the details it carries. */
const ERROR_EXAMPLES: Record<ErrorCode, { message: string; details?: Record<string, unknown> }> = {
  AUTH401_UNAUTHORIZED_ACCESS: { message: 'missing or invalid API key' },
  QR_CODE404_NOT_FOUND: {
    message: 'QR code not found',
    details: { token: 'QRAY674KF1K1BX34DN2RPY' },
  },
  VALIDATION400: {
    message: 'Validation failed',
    details: { errors: [{ field: 'reference', errors: ['reference should not be empty'] }] },
  },
  PARTNER_API401_UNAUTHORIZED: { message: 'missing or invalid API key' },
  PARTNER_API403_MERCHANT_INACTIVE: {
    message: 'merchant account is not active',
    details: { merchantId: '197a5a98-64b4-442d-bd05-410519263304' },
  },
  VALIDATION400_BAD_REQUEST: {
    message: 'request validation failed',
    details: {
      failures: [{ field: 'amount', message: 'amount must be an integer number of centimes' }],
    },
  },
  PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE: {
    message: 'amount must be between 5000 and 100000000 centimes',
    details: { min: 5000, max: 100_000_000 },
  },
  PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY: {
    message: 'currency USD is not supported',
    details: { currency: 'USD', supported: ['DZD'] },
  },
  VALIDATION422_UNPROCESSABLE_ENTITY: {
    message: 'metadata must be at most 4096 bytes of JSON',
    details: { maxBytes: 4096 },
  },
  PAYMENT_INSTANCE409_DUPLICATE_REFERENCE: {
    message: 'reference already used',
    details: { reference: 'ORDER-1042' },
  },
  SETTLEMENT422_MERCHANT_WALLET_MISSING: { message: 'merchant has no wallet to settle into' },
  CARDNET502_REGISTRATION_FAILED: {
    message: 'card network unavailable; retry with a new reference',
  },
  PAYMENT_INSTANCE404_NOT_FOUND: { message: 'payment not found', details: { id: PAYMENT_ID } },
  PAYMENT_LINK404_NOT_FOUND: {
    message: 'payment link not found',
    details: { id: '0f8b2c4e-6a1d-4e2f-9b7a-3c5d7e9f1a2b' },
  },
  PAYMENT_LINK409_ALREADY_PAID: { message: 'the single-use payment link is paid' },
  PAYMENT_LINK409_BEING_PAID: {
    message: 'another payer is paying this link now',
    details: { retryAt: '2026-11-20T10:32:00.000Z' },
  },
  PAYMENT_LINK410_DEACTIVATED: { message: 'the payment link was deactivated' },
  PAYMENT_LINK410_EXPIRED: {
    message: 'the payment link has expired',
    details: { expiresAt: '2026-11-20T10:00:00.000Z' },
  },
  PAYOUT422_OVER_BALANCE: {
    message: 'payout of 3000.51 DZD is more than the available balance of 3000.50 DZD',
    details: { field: 'amount', amount: 300_051, available: 300_050 },
  },
  PAYOUT409_REFERENCE_TAKEN: {
    message: 'bank reference already used for another payout',
    details: { field: 'reference' },
  },
  RECEIPT409_NOT_AVAILABLE: {
    message: 'payment did not succeed: no receipt',
    details: { status: 'failed' },
  },
  RATE429_LIMIT_EXCEEDED: {
    message: 'at most 20 receipt emails per hour',
    details: { limit: 20, retryAfterSeconds: 1800 },
  },
  RECEIPT502_EMAIL_FAILED: {
    message: 'mail server refused the receipt; retry later',
    details: { smtpCode: 550 },
  },
  ROUTE404_NOT_FOUND: { message: 'no route GET /api/v1/payment' },
  QR_CODE409_ALREADY_EXISTS: { message: 'QR code already exists' },
  IDEMPOTENCY409_KEY_REUSED: { message: 'Idempotency-Key already used with another request' },
  PAYMENT_INSTANCE409_NOT_REFUNDABLE: {
    message: 'payment cannot be refunded',
    details: { status: 'created' },
  },
  PAYMENT_INSTANCE409_REFUND_PENDING: {
    message: 'another refund of this payment awaits the card network; retry later',
    details: { id: '3b9e4c1d-2a7f-4e8b-9c6d-5a4b3c2d1e0f', pendingRefundAmount: 100_000 },
  },
  CHECKOUT404_NOT_FOUND: { message: 'checkout link not found' },
  PARTNER404_PRODUCT_NOT_FOUND: { message: 'the partner does not know this reference' },
  PARTNER409_ALREADY_PAID: { message: 'the partner says this reference is already paid' },
  PARTNER503_UNAVAILABLE: { message: 'the partner server is unavailable' },
  REFERENCE409_LOCKED: { message: 'this reference is being paid' },
  WEBHOOK404_DELIVERY_NOT_FOUND: {
    message: 'webhook delivery not found',
    details: { id: '7d4c2b1a-0f9e-4d8c-b7a6-5f4e3d2c1b0a' },
  },
  PAYMENT_INSTANCE409_NOT_CANCELLABLE: {
    message: 'payment cannot be cancelled',
    details: { status: 'success' },
  },
  WEBHOOK404_EVENT_NOT_FOUND: {
    message: 'event not found',
    details: { id: '0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10' },
  },
  WEBHOOK409_ENDPOINT_MISSING: { message: 'no webhook endpoint is set for this mode' },
  SERVICE503_UNAVAILABLE: { message: 'service temporarily unavailable, retry later' },
  INTERNAL500_ERROR: { message: 'internal error' },
};

/** The standard error envelope an error code travels in, as an example. */
export function errorExample(code: ErrorCode): StandardError {
  const { message, details } = ERROR_EXAMPLES[code];
  return {
    statusCode: httpStatusOf(code),
    message,
    errorCode: code,
    timestamp: AT,
    ...(details ? { details } : {}),
  };
}
