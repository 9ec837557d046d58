// Responses every route behind an API key shares, described once for the OpenAPI document.

export const rateLimited = {
  description: 'more than RATE_LIMIT_PER_MINUTE requests a minute for this key; safe to retry',
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

/** The query of a paged list: its size and where the previous page ended. */
export const PAGE_QUERY = {
  limit: 'page size, 1 to 100 (default 20)',
  cursor: 'nextCursor of the previous page',
};

/** 400 for a query's from..to days the daily report and the balance read alike. */
export const invalidDayRange = {
  description:
    'from or to is not a YYYY-MM-DD day, to is before from, or the range is over 366 days: details.failures names the field',
  errors: ['VALIDATION400_BAD_REQUEST'] as const,
};
