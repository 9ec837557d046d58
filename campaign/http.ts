/** One HTTP exchange of an actor with dzpay (or the card form), as invariant 6 reads it. */
export interface Exchange {
  /** When the request was sent. */
  sentAt: number;
  /** When its answer (or the failure) came. */
  at: number;
  method: string;
  /** The route with ids, tokens and references replaced, for counting. */
  route: string;
  /** The HTTP status, or 0 when no answer came (refused, reset, timed out). */
  status: number;
  /** The error code of an enveloped JSON error, when there was one. */
  errorCode?: string;
}

/** Everything the actors sent and what came back. */
export interface HttpLog {
  exchanges: Exchange[];
}

export interface Answer {
  status: number;
  location: string | null;
  text: string;
  json(): unknown;
}

const TIMEOUT_MS = 25_000;

/**
 * fetch for actors: never follows redirects (an actor decides where to go, and whether
 * it comes back at all), gives up after 25 s, and logs every exchange. No answer at all
 * is status 0.
 */
export function actorHttp(log: HttpLog) {
  return async function call(
    url: string,
    init: {
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      form?: Record<string, string>;
    } = {},
  ): Promise<Answer> {
    const method = init.method ?? (init.body !== undefined || init.form ? 'POST' : 'GET');
    const headers = { ...init.headers };
    let body = init.body;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (body !== undefined) headers['content-type'] ??= 'application/json';
    const sentAt = Date.now();
    const exchange: Exchange = { sentAt, at: sentAt, method, route: routeOf(url), status: 0 };
    log.exchanges.push(exchange);
    try {
      const response = await fetch(url, {
        method,
        headers,
        ...(body !== undefined && { body }),
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const text = await response.text();
      exchange.status = response.status;
      exchange.at = Date.now();
      const code = errorCodeOf(text);
      if (code) exchange.errorCode = code;
      return {
        status: response.status,
        location: response.headers.get('location'),
        text,
        json: () => JSON.parse(text) as unknown,
      };
    } catch {
      exchange.at = Date.now();
      return { status: 0, location: null, text: '', json: () => undefined };
    }
  };
}

export type ActorHttp = ReturnType<typeof actorHttp>;

function errorCodeOf(text: string): string | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const code = (JSON.parse(text) as { errorCode?: unknown }).errorCode;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** `/api/v1/payments/6f1c…/refund` → `/api/v1/payments/:id/refund`, and so on. */
function routeOf(url: string): string {
  const { pathname } = new URL(url);
  return pathname
    .replace(/\/[0-9a-f]{8}-[0-9a-f-]{27}/g, '/:id')
    .replace(/^\/checkout\/(?!return)[A-Za-z0-9_-]{20,}/, '/checkout/:token')
    .replace(/^\/qr\/[^/]+/, '/qr/:token')
    .replace(/^\/pay\/:id\/[^/]+/, '/pay/:id/:reference')
    .replace(/^\/partner\/payments\/v1\/[^/]+/, '/partner/payments/v1/:reference');
}
