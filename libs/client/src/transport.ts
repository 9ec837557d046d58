import type { z } from 'zod';
import { DzpayError, type DzpayClientOptions, type IdempotencyOptions } from './client.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * How the client's methods reach the gateway: a JSON call checked against its schema,
 * a raw request for bodies that are not JSON (CSV, images), and the helpers every
 * method needs. Each group of methods (client.ts, back-office-*.ts) is built on it.
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
  idempotency: (options?: IdempotencyOptions) => Record<string, string>;
}

export function clientTransport(options: DzpayClientOptions): ClientTransport {
  const send = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');

  async function raw(
    method: HttpMethod,
    path: string,
    extraHeaders: Record<string, string> = {},
    body?: unknown,
  ): Promise<Response> {
    return send(`${base}${path}`, {
      method,
      headers: {
        'x-api-key': options.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...extraHeaders,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  return {
    async call(method, path, success, body, extraHeaders = {}) {
      const response = await raw(method, path, extraHeaders, body);
      const text = await response.text();
      const parsed: unknown = text === '' ? undefined : JSON.parse(text);
      const expected: readonly number[] =
        typeof success.status === 'number' ? [success.status] : success.status;
      if (!expected.includes(response.status)) {
        throw new DzpayError(response.status, parsed, response.headers.get('retry-after'));
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
    idempotency: (idempotencyOptions): Record<string, string> =>
      idempotencyOptions?.idempotencyKey
        ? { 'idempotency-key': idempotencyOptions.idempotencyKey }
        : {},
  };
}
