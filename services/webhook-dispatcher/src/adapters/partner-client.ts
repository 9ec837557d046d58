import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { isAllowedAddress } from '../domain/address-guard.ts';
import type { PartnerAnswer } from '../domain/attempt.ts';

/** The target is, or resolves to, an address a live-mode webhook may not reach. */
export class TargetRefusedError extends Error {
  constructor(host: string) {
    super(`target refused: ${host} is a private address`);
    this.name = 'TargetRefusedError';
  }
}

/** The attempt was abandoned because the dispatcher is stopping: not the partner's doing. */
export class AbandonedError extends Error {
  constructor() {
    super('attempt abandoned: dispatcher stopping');
    this.name = 'AbandonedError';
  }
}

/** Bodies past this are not kept (an acknowledgement is a few bytes). */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * Resolves like dns.lookup, but fails when any address the name resolves to is
 * refused. Given to the socket itself, so the check holds at connect time and a name
 * re-pointed after a check (DNS rebinding) cannot slip through.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    if (addresses.length === 0 || addresses.some((entry) => !isAllowedAddress(entry.address))) {
      callback(new TargetRefusedError(hostname), '', 0);
      return;
    }
    if (options.all) {
      callback(null, addresses);
      return;
    }
    const [first] = addresses as [LookupAddress];
    callback(null, first.address, first.family);
  });
};

/**
 * POSTs webhooks over keep-alive connections. Guarded (live-mode) requests have agents
 * of their own, so a socket opened unchecked for a test-mode endpoint is never reused
 * for a live one.
 */
export function partnerClient() {
  const agents = {
    open: {
      http: new http.Agent({ keepAlive: true }),
      https: new https.Agent({ keepAlive: true }),
    },
    guarded: {
      http: new http.Agent({ keepAlive: true }),
      https: new https.Agent({ keepAlive: true }),
    },
  };

  return {
    /**
     * One POST, its answer read within `timeoutMs`. Throws TargetRefusedError for a
     * refused target, AbandonedError when `abandon` fires, other errors for a failed
     * connection, TLS or timeout.
     */
    async post(request: {
      url: string;
      headers: Record<string, string>;
      body: string;
      timeoutMs: number;
      guard: boolean;
      abandon: AbortSignal;
    }): Promise<PartnerAnswer> {
      const url = new URL(request.url);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      // An IP literal is connected to without any lookup: check it here.
      if (request.guard && isIP(host) !== 0 && !isAllowedAddress(host)) {
        throw new TargetRefusedError(host);
      }
      const secure = url.protocol === 'https:';
      const pool = request.guard ? agents.guarded : agents.open;
      const timeout = AbortSignal.timeout(request.timeoutMs);
      const signal = AbortSignal.any([timeout, request.abandon]);
      try {
        return await send(
          secure ? https : http,
          url,
          {
            method: 'POST',
            agent: secure ? pool.https : pool.http,
            headers: {
              ...request.headers,
              'content-length': String(Buffer.byteLength(request.body)),
            },
            signal,
            ...(request.guard ? { lookup: guardedLookup } : {}),
          },
          request.body,
        );
      } catch (error) {
        if (request.abandon.aborted) throw new AbandonedError();
        if (timeout.aborted)
          throw new Error(`timeout after ${request.timeoutMs} ms`, { cause: error });
        throw error;
      }
    },
    close(): void {
      for (const pool of Object.values(agents)) {
        pool.http.destroy();
        pool.https.destroy();
      }
    },
  };
}

export type PartnerClient = ReturnType<typeof partnerClient>;

function send(
  transport: typeof http | typeof https,
  url: URL,
  options: http.RequestOptions,
  body: string,
): Promise<PartnerAnswer> {
  return new Promise((resolve, reject) => {
    const req = transport.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      res.on('end', () => {
        const retryAfter = res.headers['retry-after'];
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
        });
      });
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
