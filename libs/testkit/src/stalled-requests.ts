import type { Server } from 'node:http';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';

// Clients that stop sending: what an HTTP server of dzpay does with them, over a raw TCP
// connection, where no HTTP client would finish the request for us.

/** The limits of libs/platform's HttpLimits, as a test gives them to a server. */
export interface ServerLimits {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
  checkEveryMs: number;
}

/** Short enough for a test, far enough apart to tell which limit dropped a request. */
export const SHORT_LIMITS: ServerLimits = {
  headersMs: 1_000,
  requestMs: 2_000,
  // Node says it in whole seconds (Keep-Alive: timeout=1).
  keepAliveMs: 1_000,
  checkEveryMs: 100,
};

/** The limits a Node server holds its connections to. */
export function limitsOf(server: Server): ServerLimits {
  return {
    headersMs: server.headersTimeout,
    requestMs: server.requestTimeout,
    keepAliveMs: server.keepAliveTimeout,
    checkEveryMs: (server as Server & { connectionsCheckingInterval: number })
      .connectionsCheckingInterval,
  };
}

/** What the server did with a connection the client left silent. */
export interface Silence {
  /** From the moment the client fell silent to the server's closing the connection. */
  closedAfterMs: number;
  /** Everything the server wrote on the connection. */
  answer: string;
}

/**
 * A connection to `url`'s host that writes `bytes`, then nothing, until the server closes
 * it; timed from the write, or from the last of the server's answer.
 */
function silentAfter(url: string, bytes: string, timedFrom: 'request' | 'answer') {
  const { hostname, port } = new URL(url);
  return new Promise<Silence>((resolve, reject) => {
    let answer = '';
    let since = performance.now();
    const socket = connect(Number(port), hostname, () => {
      since = performance.now();
      socket.write(bytes);
    });
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      if (timedFrom === 'answer') since = performance.now();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve({ closedAfterMs: performance.now() - since, answer }));
    // Far past any limit a test sets: the server holds it for as long as the client likes.
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`${url} still held the connection after 20 s`));
    }, 20_000).unref();
  });
}

/** A request's first header lines; the blank line that ends them never comes. */
export function headersThatStall(url: string, path: string): Promise<Silence> {
  return silentAfter(
    url,
    `POST ${path} HTTP/1.1\r\nHost: dzpay.test\r\nAccept: */*\r\n`,
    'request',
  );
}

/** A request's whole headers, promising 1000 bytes of body, and the first 10 of them. */
export function bodyThatStalls(url: string, path: string, contentType: string): Promise<Silence> {
  return silentAfter(
    url,
    `POST ${path} HTTP/1.1\r\nHost: dzpay.test\r\nContent-Type: ${contentType}\r\n` +
      'Content-Length: 1000\r\n\r\na=12345678',
    'request',
  );
}

/** A whole GET, answered; then the connection is kept, idle, until the server closes it. */
export function idleAfterAnswer(url: string, path: string): Promise<Silence> {
  return silentAfter(
    url,
    `GET ${path} HTTP/1.1\r\nHost: dzpay.test\r\nConnection: keep-alive\r\n\r\n`,
    'answer',
  );
}

/**
 * The server dropped the request at `limitMs`: not before it, and within one check
 * (`checkEveryMs`) and a margin for a busy machine after it; with 408, 400 or no answer.
 */
export function expectDroppedAt(silence: Silence, limitMs: number, checkEveryMs: number): void {
  expect(silence.answer).toMatch(/^(HTTP\/1\.1 (408|400) |$)/);
  // Timers may fire a few milliseconds early against performance.now().
  expect(silence.closedAfterMs).toBeGreaterThanOrEqual(limitMs - 20);
  expect(silence.closedAfterMs).toBeLessThan(limitMs + checkEveryMs + 750);
}

/**
 * The idle connection was closed after `keepAliveMs` and Node's second of grace past
 * it (server.keepAliveTimeoutBuffer), which covers a client reusing it just then.
 */
export function expectIdleClosedAt(silence: Silence, keepAliveMs: number): void {
  expect(silence.answer).toMatch(/^HTTP\/1\.1 [23]\d\d /);
  expect(silence.answer.toLowerCase()).toContain(
    `keep-alive: timeout=${Math.floor(keepAliveMs / 1000)}`,
  );
  expect(silence.closedAfterMs).toBeGreaterThanOrEqual(keepAliveMs - 20);
  expect(silence.closedAfterMs).toBeLessThan(keepAliveMs + 1_000 + 750);
}
