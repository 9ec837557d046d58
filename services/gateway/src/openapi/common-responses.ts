// Responses every route behind an API key shares, described once for the OpenAPI document.

export const rateLimited = {
  description: 'too many requests for this key',
  shape: 'rate-limit',
} as const;
export const unavailable = (what: string) => ({
  description: `${what} did not answer in time; safe to retry`,
  errors: ['SERVICE503_UNAVAILABLE'] as const,
});
export const internal = { description: 'a fault of dzpay', errors: ['INTERNAL500_ERROR'] as const };
export const unauthorized = {
  description: 'the x-api-key header is missing, invalid or revoked, or its merchant is inactive',
  errors: ['AUTH401_UNAUTHORIZED_ACCESS'] as const,
};

/** 401, 429 and 500: what any route behind an API key may answer. */
export const API_KEY_RESPONSES = { 401: unauthorized, 429: rateLimited, 500: internal } as const;
