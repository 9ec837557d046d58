import {
  Agent,
  request as httpRequest,
  validateHeaderName,
  validateHeaderValue,
  type OutgoingHttpHeaders,
} from 'node:http';
import { connect } from 'node:net';

/**
 * A request body as the fuzzer describes it: literal text, raw bytes (invalid UTF-8),
 * or a long repetition, kept short so a counterexample prints in a few lines.
 */
export type FuzzBody =
  | { text: string }
  | { bytes: number[] }
  | { repeat: string; times: number; prefix?: string; suffix?: string };

/**
 * One request exactly as it goes on the wire. `target` is the request-target as sent
 * (already percent-encoded or deliberately not); headers keep their order and may
 * repeat. `raw` sends it through a plain socket, for what node:http refuses to write
 * (CR or LF in a header value, bytes outside Latin-1 in the target).
 */
export interface FuzzRequest {
  /** The route aimed at, "METHOD /pattern", for the report. */
  route: string;
  method: string;
  target: string;
  headers: [string, string][];
  body?: FuzzBody;
  raw?: boolean;
}

export type Answer =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: Buffer; ms: number }
  | { kind: 'hang'; ms: number }
  /** The connection ended (or never opened) without a status line. */
  | { kind: 'no-answer'; error: string; ms: number };

function bodyBytes(body: FuzzBody | undefined): Buffer | undefined {
  if (!body) return undefined;
  if ('text' in body) return Buffer.from(body.text, 'utf8');
  if ('bytes' in body) return Buffer.from(body.bytes);
  return Buffer.from(`${body.prefix ?? ''}${body.repeat.repeat(body.times)}${body.suffix ?? ''}`);
}

/** Bytes node:http's client refuses in a request-target or a header value. */
const REFUSED_BY_NODE = /[^\u0021-\u00ff]|[\r\n\0]/;

/** Whether the request must go through the raw socket. */
function needsRaw(request: FuzzRequest): boolean {
  return (
    request.raw === true ||
    // node:http's client hands a CONNECT answer to a 'connect' event, as a tunnel.
    request.method.toUpperCase() === 'CONNECT' ||
    // Headers that change what the connection is: their request goes on a connection of
    // its own, so that a kept-alive one is never left in a protocol state of their making.
    request.headers.some(([name]) => /^(connection|upgrade|expect)$/i.test(name)) ||
    REFUSED_BY_NODE.test(request.target) ||
    request.headers.some(([name, value]) => !nodeWrites(name, value))
  );
}

/** Whether node:http's client accepts the header as it is (its own checks decide). */
function nodeWrites(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

/** A keep-alive client; one per fuzz run, closed at the end. */
export interface FuzzClient {
  send(request: FuzzRequest): Promise<Answer>;
  close(): void;
}

export function fuzzClient(baseUrl: string, timeoutMs: number): FuzzClient {
  const { hostname, port } = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const where = { host: hostname, port: Number(port) };
  return {
    async send(request) {
      if (needsRaw(request)) return sendRaw(where, request, timeoutMs);
      const answer = await sendHttp(where, agent, request, timeoutMs);
      // A kept-alive connection the server had just closed fails at once: Node's
      // documented remedy is to send again, here on a fresh connection.
      return answer.kind === 'no-answer' && answer.error === REUSED_SOCKET_CLOSED
        ? sendHttp(where, false, request, timeoutMs)
        : answer;
    },
    close: () => agent.destroy(),
  };
}

const REUSED_SOCKET_CLOSED = 'reused connection closed by the server';

function sendHttp(
  where: { host: string; port: number },
  agent: Agent | false,
  request: FuzzRequest,
  timeoutMs: number,
): Promise<Answer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of request.headers) {
    const key = name.toLowerCase();
    const seen = headers[key];
    headers[key] = seen === undefined ? value : [...[seen].flat().map(String), value];
  }
  const body = bodyBytes(request.body);
  if (body && headers['content-length'] === undefined) headers['content-length'] = body.length;
  return new Promise((resolve) => {
    let settled = false;
    let responded = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const outgoing = httpRequest(
      { ...where, agent, method: request.method, path: request.target, headers },
      (response) => {
        responded = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          // Answered before the whole body was read (413): the rest of the body is not
          // worth sending, and a connection left half-sent would stay open forever.
          if (!outgoing.writableFinished) outgoing.destroy();
          settle({
            kind: 'answer',
            status: response.statusCode ?? 0,
            headers: flatHeaders(response.headers),
            body: Buffer.concat(chunks),
            ms: elapsed(),
          });
        });
        response.on('error', (error) =>
          settle({ kind: 'no-answer', error: error.message, ms: elapsed() }),
        );
      },
    );
    const timer = setTimeout(() => {
      settle({ kind: 'hang', ms: elapsed() });
      outgoing.destroy();
    }, timeoutMs);
    // A server that answers before reading a large body and closes makes later writes
    // fail: the answer (if it came) is what counts.
    outgoing.on('error', (error) =>
      setImmediate(() =>
        settle({
          kind: 'no-answer',
          error: outgoing.reusedSocket && !responded ? REUSED_SOCKET_CLOSED : error.message,
          ms: elapsed(),
        }),
      ),
    );
    outgoing.end(body);
  });
}

function flatHeaders(headers: Record<string, string | string[] | undefined>) {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, [value].flat().join(', ')]),
  );
}

/** The request written byte for byte on a fresh connection, read until the server closes. */
function sendRaw(
  where: { host: string; port: number },
  request: FuzzRequest,
  timeoutMs: number,
): Promise<Answer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const body = bodyBytes(request.body);
  const lines = [
    `${request.method} ${request.target} HTTP/1.1`,
    `host: ${where.host}:${where.port}`,
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
    ...(body && !request.headers.some(([name]) => name.toLowerCase() === 'content-length')
      ? [`content-length: ${body.length}`]
      : []),
    'connection: close',
  ];
  // Latin-1 keeps the fuzzer's raw bytes (\xED\xA0\x80) as they are; text above U+00FF
  // goes as UTF-8, as a browser would send it.
  const head = Buffer.concat(
    [...lines, '', ''].map((line, index, all) =>
      Buffer.from(line + (index < all.length - 1 ? '\r\n' : ''), latin1(line) ? 'latin1' : 'utf8'),
    ),
  );
  const isHead = request.method.toUpperCase() === 'HEAD';
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect(where);
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => {
      // A complete answer may already be here on a connection the server keeps open.
      const parsed = parseRawResponse(Buffer.concat(chunks), false, isHead);
      settle(parsed ? { ...parsed, ms: elapsed() } : { kind: 'hang', ms: elapsed() });
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const parsed = parseRawResponse(Buffer.concat(chunks), false, isHead);
      if (parsed) settle({ ...parsed, ms: elapsed() });
    });
    const finish = (error?: Error) => {
      const parsed = parseRawResponse(Buffer.concat(chunks), true, isHead);
      settle(
        parsed
          ? { ...parsed, ms: elapsed() }
          : { kind: 'no-answer', error: error?.message ?? 'connection closed', ms: elapsed() },
      );
    };
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (error) => setImmediate(() => finish(error)));
    socket.write(body ? Buffer.concat([head, body]) : head);
  });
}

// eslint-disable-next-line no-control-regex -- every Latin-1 character, controls included
const latin1 = (text: string) => /^[\u0000-\u00ff]*$/.test(text);

/**
 * A complete HTTP/1.1 response in `bytes`, or null while it is incomplete: the status
 * line, headers, and a body by Content-Length, chunked encoding, or (when the
 * connection has ended) up to the end.
 */
export function parseRawResponse(
  bytes: Buffer,
  ended = false,
  head = false,
): { kind: 'answer'; status: number; headers: Record<string, string>; body: Buffer } | null {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const [statusLine, ...headerLines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1];
  if (!status) return null;
  // 100 Continue (asked with Expect) precedes the real answer.
  if (status.startsWith('1')) return parseRawResponse(bytes.subarray(headEnd + 4), ended, head);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const rest = bytes.subarray(headEnd + 4);
  const answer = (body: Buffer) => ({
    kind: 'answer' as const,
    status: Number(status),
    headers,
    body,
  });
  const noBody = head || Number(status) === 204 || Number(status) === 304;
  if (noBody) return answer(Buffer.alloc(0));
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return rest.length >= length ? answer(rest.subarray(0, length)) : null;
  }
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const body = dechunk(rest);
    return body ? answer(body) : null;
  }
  return ended ? answer(rest) : null;
}

function dechunk(bytes: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return null;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return null;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (bytes.length < start + size + 2) return null;
    parts.push(bytes.subarray(start, start + size));
    at = start + size + 2;
  }
}
