import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { DzpayConnectionError, DzpayError } from './errors.ts';
import { DEFAULT_RETRY_POLICY, retryDelaySeconds, type TryOutcome } from './retry.ts';

/** Where the client sends its requests, and with which key. */
export interface DzpayClientOptions {
  /** The gateway's base URL, e.g. https://pay.example.dz. */
  baseUrl: string;
  /** A `pk_test_…` or `pk_live_…` key. */
  apiKey: string;
  /** A fetch of one's own (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
  /**
   * How many times a 429, or a 503 or lost connection where repeating is safe, is sent
   * again (2 by default; 0: never). See retry.ts.
   */
  maxRetries?: number;
  /** The longest Retry-After waited for (60 s by default); a longer one is thrown at once. */
  maxRetryDelaySeconds?: number;
}

/**
 * POSTs that do the same however often they are sent, so a 503 or a lost connection may
 * repeat them without an Idempotency-Key: cancelling, deactivating a link, and setting or
 * unsetting a QR code's amounts, except a single-use setting (a payer may have used it
 * between the two tries: the second would arm it again).
 */
function idempotentPost(path: string, body: unknown): boolean {
  if (/\/cancel$/.test(path) || /\/deactivate$/.test(path) || path === '/un-set-qr-config') {
    return true;
  }
  const singleUse = (body as { singleUse?: unknown } | undefined)?.singleUse === true;
  return path === '/set-qr-config' && !singleUse;
}

/** Whether a 409's body says the key's first request still runs (details.inProgress). */
async function stillRunning(response: Response): Promise<boolean> {
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { details?: { inProgress?: unknown } } | undefined;
  return body?.details?.inProgress === true;
}

/** For POSTs that create or move money: the same key and body answer the first result again. */
export interface IdempotencyOptions {
  idempotencyKey?: string;
}

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * How the client's methods reach the gateway: a JSON call checked against its schema,
 * a raw request for bodies that are not JSON (CSV, images), and the helpers every
 * method needs. Each resource's methods (payments.ts, qr-codes.ts, …) are built on it.
 */
export interface ClientTransport {
  call: <S extends z.ZodType>(
    method: HttpMethod,
    path: string,
    /** The answer's status (or one of them) and the schema of its body. */
    success: { status: number | readonly number[]; schema: S } | { status: 204 },
    body?: unknown,
    extraHeaders?: Record<string, string>,
  ) => Promise<z.infer<S>>;
  /** The raw response of a 2xx answer; anything else throws DzpayError. */
  raw: (
    method: HttpMethod,
    path: string,
    extraHeaders?: Record<string, string>,
  ) => Promise<Response>;
  segment: (value: string) => string;
  /** `?name=value&…` of the fields that are set; '' when none is. */
  query: (fields: object) => string;
  idempotency: (options?: IdempotencyOptions) => Record<string, string>;
}

export function clientTransport(options: DzpayClientOptions): ClientTransport {
  const send = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const policy = {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    maxRetryDelaySeconds: options.maxRetryDelaySeconds ?? DEFAULT_RETRY_POLICY.maxRetryDelaySeconds,
  };

  /** One request, sent again as retry.ts allows; every try has the same headers and body. */
  async function raw(
    method: HttpMethod,
    path: string,
    extraHeaders: Record<string, string> = {},
    body?: unknown,
  ): Promise<Response> {
    const key = extraHeaders['idempotency-key'];
    const safe = method === 'GET' || key !== undefined || idempotentPost(path.split('?')[0]!, body);
    // Every try sends the same headers and the same bytes.
    const init: RequestInit = {
      method,
      headers: {
        'x-api-key': options.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...extraHeaders,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
    for (let attempt = 0; ; attempt += 1) {
      let outcome: TryOutcome;
      let response: Response | undefined;
      let lost: unknown;
      try {
        response = await send(`${base}${path}`, init);
        if (response.ok) return response;
        outcome = {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          inProgress: response.status === 409 && (await stillRunning(response)),
        };
      } catch (error) {
        lost = error;
        outcome = { lost: true };
      }
      const delay = retryDelaySeconds(outcome, attempt, safe, policy);
      if (delay === null) {
        if (response) return response;
        throw new DzpayConnectionError(method, path, lost, key);
      }
      await response?.body?.cancel();
      await sleep(delay * 1000);
    }
  }

  return {
    async call(method, path, success, body, extraHeaders = {}) {
      const response = await raw(method, path, extraHeaders, body);
      const text = await response.text();
      const parsed: unknown = text === '' ? undefined : JSON.parse(text);
      const expected: readonly number[] =
        typeof success.status === 'number' ? [success.status] : success.status;
      if (!expected.includes(response.status)) {
        throw new DzpayError(
          response.status,
          parsed,
          response.headers.get('retry-after'),
          extraHeaders['idempotency-key'],
        );
      }
      return 'schema' in success ? success.schema.parse(parsed) : (undefined as never);
    },
    async raw(method, path, extraHeaders = {}) {
      const response = await raw(method, path, extraHeaders);
      if (response.ok) return response;
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: DzpayError keeps the text
      }
      throw new DzpayError(response.status, parsed, response.headers.get('retry-after'));
    },
    segment: encodeURIComponent,
    query(fields) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(fields) as [
        string,
        string | number | undefined,
      ][]) {
        if (value !== undefined) params.set(name, String(value));
      }
      return params.size === 0 ? '' : `?${params.toString()}`;
    },
    // A key of the call's own when the caller gives none: its retries can then never
    // register or refund twice.
    idempotency: (idempotencyOptions): Record<string, string> => ({
      'idempotency-key': idempotencyOptions?.idempotencyKey ?? randomUUID(),
    }),
  };
}
