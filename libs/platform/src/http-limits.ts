import type { ServerOptions } from 'node:http';

/** How long an HTTP server of dzpay waits for a request, and for the next one. */
export interface HttpLimits {
  /** From a request's first byte, its headers must all have arrived within this long. */
  headersMs: number;
  /** From a request's first byte, all of it, headers and body, within this long. */
  requestMs: number;
  /** A keep-alive connection with no request in it is closed after this long. */
  keepAliveMs: number;
  /** How often Node looks for requests past the two limits: each is met this closely. */
  checkEveryMs: number;
}

/**
 * Every server's limits (docs/architecture.md, "HTTP limits"). Constants rather than
 * settings: requests are small (64 KiB at most), a client that takes seconds to send
 * one is stalling, and no deployment has needed other values; tests pass shorter ones.
 * Node checks the first two only every `checkEveryMs` (its default, 30 s, let a 30 s
 * limit run to a minute), so they are checked every second.
 */
export const HTTP_LIMITS: Readonly<HttpLimits> = Object.freeze({
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
});

/** The options of Fastify() that set the limits; spread them into its options. */
export interface HttpLimitOptions {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
}

/**
 * Fastify() options holding a server to `limits`. A request past one is answered 408
 * (or what the server's clientErrorHandler says) and its connection closed.
 */
export function httpLimitOptions(limits: HttpLimits = HTTP_LIMITS): HttpLimitOptions {
  return {
    // Fastify writes these two onto the server after creating it, over `http`'s values
    // (its defaults: no request limit, 72 s of keep-alive).
    requestTimeout: limits.requestMs,
    keepAliveTimeout: limits.keepAliveMs,
    // Node reads these at creation only: the checking interval starts with the listener.
    http: {
      headersTimeout: limits.headersMs,
      requestTimeout: limits.requestMs,
      keepAliveTimeout: limits.keepAliveMs,
      connectionsCheckingInterval: limits.checkEveryMs,
    },
  };
}
