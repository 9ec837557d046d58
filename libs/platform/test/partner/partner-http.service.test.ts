import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  partnerHttpClient,
  PartnerTimeoutError,
  TargetRefusedError,
} from '../../src/partner/partner-http.ts';
import { partnerUrl } from '../../src/partner/partner-url.ts';
import {
  countingServer,
  loopbackOnlyConnect,
  PRIVATE_TARGETS,
  type CountingServer,
  type Dial,
} from '@dzpay/testkit/loopback-connect';

// Every client here gets loopbackOnlyConnect: only 127.0.0.1 and ::1 are ever dialed.
let v4: CountingServer;
let v6: CountingServer;
let redirected: CountingServer;
const ok = (response: ServerResponse) =>
  response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');

beforeAll(async () => {
  redirected = await countingServer('127.0.0.1', (_request, response) => ok(response));
  v4 = await countingServer('127.0.0.1', (request, response) => {
    request.resume();
    if (request.url?.startsWith('/redirect')) {
      response.writeHead(302, { location: `http://127.0.0.1:${redirected.port}/` }).end();
    } else if (request.url?.startsWith('/big')) {
      response.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const send = (left: number) => {
        if (left === 0) return response.end();
        if (response.write(chunk)) send(left - 1);
        else response.once('drain', () => send(left - 1));
      };
      send(10 * 16); // 10 MB, unless the client hangs up first
    } else if (request.url?.startsWith('/hang')) {
      // never answers
    } else {
      ok(response);
    }
  });
  v6 = await countingServer('::1', (request, response) => {
    request.resume();
    ok(response);
  });
});
afterAll(async () => {
  await Promise.all([v4, v6, redirected].map((server) => server?.close()));
});

function client(allowPrivateTargets: boolean, dials: Dial[], maxResponseBytes?: number) {
  return partnerHttpClient({
    allowPrivateTargets,
    connect: loopbackOnlyConnect(dials),
    ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
  });
}

const portOf = (target: (typeof PRIVATE_TARGETS)[number]) =>
  target.loopback === '::1' ? v6.port : v4.port;
const get = (url: URL, timeoutMs = 2_000) => ({
  method: 'GET' as const,
  url,
  headers: {},
  timeoutMs,
});
const connections = () => v4.connections() + v6.connections();

describe('the guarded partner client, private targets refused (every deployment)', () => {
  it.each(PRIVATE_TARGETS)('refuses $host before any socket is opened', async (target) => {
    const dials: Dial[] = [];
    const http = client(false, dials);
    const before = connections();
    const url = partnerUrl(`http://${target.host}:${portOf(target)}/api`, 'REF-1');
    await expect(http.request(get(url))).rejects.toBeInstanceOf(TargetRefusedError);
    http.close();
    expect(dials.filter((dial) => dial.dialed)).toEqual([]);
    expect(connections()).toBe(before);
  });

  it('checks a name at connect time, through the socket’s own lookup', async () => {
    const dials: Dial[] = [];
    const http = client(false, dials);
    await expect(http.request(get(new URL(`http://localhost:${v4.port}/`)))).rejects.toBeInstanceOf(
      TargetRefusedError,
    );
    http.close();
    // The guard answered the socket's lookup: the test's connect never saw an address.
    expect(dials).toEqual([]);
  });
});

describe('the guarded partner client, private targets allowed (a developer’s machine)', () => {
  it.each(PRIVATE_TARGETS)('lets $host through to the socket', async (target) => {
    const dials: Dial[] = [];
    const http = client(true, dials);
    const before = connections();
    const url = partnerUrl(`http://${target.host}:${portOf(target)}/api`, 'REF-1');
    const request = http.request(get(url));
    if (target.loopback) {
      const answer = await request;
      expect(answer.status).toBe(200);
      expect(connections()).toBe(before + 1);
    } else {
      // Allowed by the client, refused by the test's connect: never dialed.
      await expect(request).rejects.toThrow(/not loopback, not dialed/);
      expect(connections()).toBe(before);
    }
    http.close();
    expect(dials).toHaveLength(1);
    expect(dials[0]!.dialed).toBe(target.loopback !== null);
  });
});

describe('limits of the guarded partner client', () => {
  it('does not follow a redirect: the 302 is the answer, its target is never asked', async () => {
    const http = client(true, []);
    const answer = await http.request(get(new URL(`http://127.0.0.1:${v4.port}/redirect`)));
    http.close();
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe(`http://127.0.0.1:${redirected.port}/`);
    expect(redirected.connections()).toBe(0);
  });

  it('cuts a body off at the size limit and stops reading', async () => {
    const http = client(true, [], 1024);
    const started = Date.now();
    const answer = await http.request(get(new URL(`http://127.0.0.1:${v4.port}/big`)));
    http.close();
    expect(answer.truncated).toBe(true);
    expect(answer.body.length).toBe(1024);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('reads a body under the limit whole', async () => {
    const http = client(true, [], 1024);
    const answer = await http.request(get(new URL(`http://127.0.0.1:${v4.port}/small`)));
    http.close();
    expect(answer).toMatchObject({ status: 200, truncated: false });
    expect(answer.body.toString()).toBe('{"success":true}');
  });

  it('gives up on a partner that never answers at the time limit', async () => {
    const http = client(true, []);
    const started = Date.now();
    await expect(
      http.request(get(new URL(`http://127.0.0.1:${v4.port}/hang`), 300)),
    ).rejects.toBeInstanceOf(PartnerTimeoutError);
    http.close();
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stops when the caller’s signal fires, with the signal’s reason', async () => {
    const http = client(true, []);
    const abandon = new AbortController();
    const request = http.request({
      ...get(new URL(`http://127.0.0.1:${v4.port}/hang`), 5_000),
      signal: abandon.signal,
    });
    abandon.abort(new Error('stopping'));
    await expect(request).rejects.toThrow('stopping');
    http.close();
  });

  it('refuses a URL that is not http(s)', async () => {
    const http = client(true, []);
    await expect(http.request(get(new URL('ftp://127.0.0.1/')))).rejects.toThrow(TypeError);
    http.close();
  });
});

describe("the tests' own connect function", () => {
  it('never dials outside loopback, even when the client lets a target through', async () => {
    const dials: Dial[] = [];
    const connect = loopbackOnlyConnect(dials);
    // A "broken guard": a lookup that lets anything through, and an IP literal.
    const socket = connect({ host: '10.1.2.3', port: 80, lookup: () => undefined });
    const error = await new Promise((resolve) => socket.on('error', resolve));
    expect(String(error)).toMatch(/not loopback/);
    const viaName = connect({
      host: 'partner.test',
      port: 80,
      lookup: (_host, _options, callback) => callback(null, '192.168.1.1', 4),
    });
    expect(String(await new Promise((resolve) => viaName.on('error', resolve)))).toMatch(
      /not loopback/,
    );
    expect(dials).toEqual([
      { host: '10.1.2.3', addresses: ['10.1.2.3'], dialed: false },
      { host: 'partner.test', addresses: ['192.168.1.1'], dialed: false },
    ]);
  });
});
