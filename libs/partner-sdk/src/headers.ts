/**
 * Request headers: as Node and Fastify give them (any casing accepted), or a fetch
 * `Headers` object (Hono, Next.js route handlers, other web-standard servers).
 */
export type IncomingHeaders = Record<string, string | string[] | undefined> | Headers;

/**
 * The single value of a header, looked up without regard to case. A header sent twice is
 * treated as absent: two timestamps or two secrets are not something dzpay sends.
 */
export function header(headers: IncomingHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) || undefined;
  let found: string | undefined;
  let count = 0;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length !== 1) return undefined;
      found = value[0];
    } else {
      found = value;
    }
    count += 1;
  }
  return count === 1 && found !== '' ? found : undefined;
}

export type TimestampCheck = 'ok' | 'malformed' | 'stale';

/**
 * Whether a unix-seconds timestamp header is within `toleranceSeconds` of `now`, in either
 * direction: an old one may be a replay, one from the future a sender's broken clock.
 */
export function checkTimestamp(value: string, now: Date, toleranceSeconds: number): TimestampCheck {
  if (!/^\d{1,12}$/.test(value)) return 'malformed';
  const skew = Math.abs(Math.floor(now.getTime() / 1000) - Number(value));
  return skew <= toleranceSeconds ? 'ok' : 'stale';
}
