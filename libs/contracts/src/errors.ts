/**
 * Every errorCode dzpay answers with, and the HTTP status it travels with.
 * The spec's codes come first, to the letter; dzpay's own additions for cases the
 * spec leaves open follow. The HTTP status is not always the number inside the code
 * (the spec sends VALIDATION422_UNPROCESSABLE_ENTITY with HTTP 400), so it is listed.
 */
export const ErrorCatalog = {
  // QR configuration endpoints
  AUTH401_UNAUTHORIZED_ACCESS: 401,
  QR_CODE404_NOT_FOUND: 404,
  // Payment status endpoint
  VALIDATION400: 400,
  PARTNER_API401_UNAUTHORIZED: 401,
  PARTNER_API403_MERCHANT_INACTIVE: 403,
  // Register payment
  VALIDATION400_BAD_REQUEST: 400,
  PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE: 400,
  PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY: 400,
  VALIDATION422_UNPROCESSABLE_ENTITY: 400,
  PAYMENT_INSTANCE409_DUPLICATE_REFERENCE: 409,
  SETTLEMENT422_MERCHANT_WALLET_MISSING: 422,
  CARDNET502_REGISTRATION_FAILED: 502,
  // Email receipt
  PAYMENT_INSTANCE404_NOT_FOUND: 404,
  RECEIPT409_NOT_AVAILABLE: 409,
  RATE429_LIMIT_EXCEEDED: 429,
  RECEIPT502_EMAIL_FAILED: 502,
  // dzpay's own (not in the spec): see docs/errors.md
  ROUTE404_NOT_FOUND: 404,
  QR_CODE409_ALREADY_EXISTS: 409,
  IDEMPOTENCY409_KEY_REUSED: 409,
  PAYMENT_INSTANCE409_NOT_REFUNDABLE: 409,
  PAYMENT_INSTANCE409_REFUND_PENDING: 409,
  CHECKOUT404_NOT_FOUND: 404,
  PARTNER404_PRODUCT_NOT_FOUND: 404,
  PARTNER409_ALREADY_PAID: 409,
  PARTNER503_UNAVAILABLE: 503,
  REFERENCE409_LOCKED: 409,
  WEBHOOK404_DELIVERY_NOT_FOUND: 404,
  // Cancelling a payment, replaying an event, sending a test webhook
  PAYMENT_INSTANCE409_NOT_CANCELLABLE: 409,
  WEBHOOK404_EVENT_NOT_FOUND: 404,
  WEBHOOK409_ENDPOINT_MISSING: 409,
  // Payment links: one that names none, or that takes no more payments
  PAYMENT_LINK404_NOT_FOUND: 404,
  PAYMENT_LINK409_ALREADY_PAID: 409,
  PAYMENT_LINK409_BEING_PAID: 409,
  PAYMENT_LINK410_DEACTIVATED: 410,
  PAYMENT_LINK410_EXPIRED: 410,
  // Payouts (the admin CLI): more than the balance, a bank reference used for another
  PAYOUT422_OVER_BALANCE: 422,
  PAYOUT409_REFERENCE_TAKEN: 409,
  // Any endpoint
  SERVICE503_UNAVAILABLE: 503,
  INTERNAL500_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ErrorCatalog;

export function httpStatusOf(code: ErrorCode): number {
  return ErrorCatalog[code];
}

/** Codes a partner's own endpoints answer with (partner error shape). */
export const PartnerErrorCatalog = {
  NOT_FOUND: 404,
  ALREADY_PAID: 409,
  SERVICE_UNAVAILABLE: 503,
} as const;
