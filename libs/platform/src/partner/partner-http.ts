import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import net, { isIP, type LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { isPublicAddress } from './address-guard.ts';

/** The target is, or resolves to, an address partner requests may not reach. */
export class TargetRefusedError extends Error {
  readonly host: string;
  constructor(host: string) {
    super(`target refused: ${host} is not a public address`);
    this.name = 'TargetRefusedError';
    this.host = host;
  }
}

/** The partner took longer than the request's time limit (connecting, answering, sending the body). */
export class PartnerTimeoutError extends Error {
  constructor(timeoutMs: number, cause: unknown) {
    super(`timeout after ${timeoutMs} ms`, { cause });
    this.name = 'PartnerTimeoutError';
  }
}

/**
 * Opens the TCP connection a partner request goes over. The client hands it the host,
 * the port and the guarded `lookup`; tests hand the client one that records the target
 * and refuses anything but loopback, so no test ever dials out even with a broken guard.
 */
export type PartnerConnect = (options: {
  host: string;
  port: number;
  lookup: LookupFunction;
}) => net.Socket;

export interface PartnerRequest {
  method: 'GET' | 'POST';
  /** Built with partnerUrl(): http or https. */
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** For the whole exchange: lookup, connect, TLS, the answer and its body. */
  timeoutMs: number;
  /** Ends the request early (a shutdown); the caller tells this apart from a timeout. */
  signal?: AbortSignal;
}

export interface PartnerHttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** At most maxResponseBytes of the body. */
  body: Buffer;
  /** The body was longer: the rest was not read (the connection is dropped). */
  truncated: boolean;
}

/** What a partner may send back before the rest is cut off: answers are a few hundred bytes. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * The one HTTP client dzpay talks to partners' servers with (product lookups, webhooks).
 * Every connection is checked where it is made: the socket resolves names through a
 * lookup that refuses a name when any of its addresses is not public, so a name
 * re-pointed after a check (DNS rebinding) cannot slip through, and an IP literal (which
 * the socket connects to without a lookup) is checked before connecting. Redirects are
 * never followed (a 3xx is an answer like any other), bodies are cut at
 * `maxResponseBytes`, and every request has a time limit. With `allowPrivateTargets`
 * (a developer's machine, the tests) every address is allowed.
 */
export function partnerHttpClient(options: {
  allowPrivateTargets: boolean;
  maxResponseBytes?: number;
  connect?: PartnerConnect;
}) {
  const allowed = (address: string) => options.allowPrivateTargets || isPublicAddress(address);
  const connect: PartnerConnect = options.connect ?? ((tcp) => net.connect(tcp));
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;

  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      if (addresses.length === 0 || addresses.some((entry) => !allowed(entry.address))) {
        callback(new TargetRefusedError(hostname), '', 0);
        return;
      }
      if (lookupOptions.all) {
        callback(null, addresses);
        return;
      }
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };

  /** The TCP connection for one request, its target checked before anything is sent. */
  function openTcp(args: http.ClientRequestArgs, secure: boolean): net.Socket {
    const host = (args.host ?? args.hostname ?? 'localhost').replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !allowed(host)) throw new TargetRefusedError(host);
    const port = Number(args.port ?? args.defaultPort ?? (secure ? 443 : 80));
    return connect({ host, port, lookup: guardedLookup });
  }

  /** Agents whose every connection goes through openTcp (keep-alive: a checked socket is reused). */
  function guardedAgent<A extends http.Agent>(agent: A, secure: boolean): A {
    agent.createConnection = (args, oncreate) => {
      let socket: Duplex;
      try {
        const tcp = openTcp(args, secure);
        socket = secure ? tls.connect({ ...(args as tls.ConnectionOptions), socket: tcp }) : tcp;
      } catch (error) {
        oncreate?.(error as Error, undefined as unknown as Duplex);
        return undefined;
      }
      return socket;
    };
    return agent;
  }

  const agents = {
    http: guardedAgent(new http.Agent({ keepAlive: true }), false),
    https: guardedAgent(new https.Agent({ keepAlive: true }), true),
  };

  return {
    /**
     * One request and its answer. Throws TargetRefusedError for a refused target,
     * PartnerTimeoutError past `timeoutMs`, the signal's reason when it fired, and the
     * socket's error when the connection failed.
     */
    async request(request: PartnerRequest): Promise<PartnerHttpAnswer> {
      const { url } = request;
      const secure = url.protocol === 'https:';
      if (!secure && url.protocol !== 'http:') {
        throw new TypeError(`partner URL must be http(s), not ${url.protocol}`);
      }
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) !== 0 && !allowed(host)) throw new TargetRefusedError(host);
      const timeout = AbortSignal.timeout(request.timeoutMs);
      const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
      const body = request.body ?? '';
      try {
        return await exchange(
          secure ? https : http,
          url,
          {
            method: request.method,
            agent: secure ? agents.https : agents.http,
            headers: {
              ...request.headers,
              ...(request.body === undefined
                ? {}
                : { 'content-length': String(Buffer.byteLength(body)) }),
            },
            signal,
          },
          body,
          maxBytes,
        );
      } catch (error) {
        if (error instanceof TargetRefusedError) throw error;
        if (request.signal?.aborted) throw request.signal.reason ?? error;
        if (timeout.aborted) throw new PartnerTimeoutError(request.timeoutMs, error);
        throw error;
      }
    },
    close(): void {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

export type PartnerHttpClient = ReturnType<typeof partnerHttpClient>;

function exchange(
  transport: typeof http | typeof https,
  url: URL,
  options: http.RequestOptions,
  body: string,
  maxBytes: number,
): Promise<PartnerHttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = transport.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = (truncated: boolean) =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).subarray(0, maxBytes),
          truncated,
        });
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        chunks.push(chunk);
        if (size > maxBytes) {
          // Enough: the rest is neither read nor waited for.
          answer(true);
          res.destroy();
        }
      });
      res.on('end', () => answer(false));
      res.on('error', reject);
      // Cut off mid-body (abort, reset): no 'end' comes, so settle here.
      res.on('close', () => {
        if (!res.complete) reject(new Error('response cut short'));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
