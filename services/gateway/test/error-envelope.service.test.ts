import { connect } from 'node:net';
import { StandardError } from '@dzpay/contracts';
import type { NatsConnection } from '@dzpay/platform';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutRoutes, possibleToken } from '../src/routes/payer-pages/checkout-routes.ts';
import { docsRoutes } from '../src/routes/docs/routes.ts';
import {
  clientErrorHandler,
  frameworkErrors,
  installErrorHandling,
} from '../src/routes/shared/errors.ts';

// Regressions the fuzzer (system/fuzz, docs/fuzzing.md) found: inputs that got a 5xx, an
// answer outside the envelope, or no answer at all. The app here has the gateway's
// error handling, its docs and checkout routes, and nothing that needs NATS: every
// case below is answered before a backing service would be asked.

let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = Fastify({ clientErrorHandler, frameworkErrors, routerOptions: { maxParamLength: 100 } });
  app.removeContentTypeParser('text/plain');
  installErrorHandling(app);
  await checkoutRoutes(app, {
    // Never reached: every request here is refused before a request to payments.
    nats: {} as NatsConnection,
    natsPrefix: 'unused',
    serviceTimeoutMs: 1_000,
    paymentsTimeoutMs: 1_000,
  });
  await docsRoutes(app, 'http://127.0.0.1', { api: 600, status: 60 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});
afterAll(() => app?.close());

/** Writes `request` on a fresh connection and reads until the server closes it. */
function raw(request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    socket.write(request);
  });
}

const envelopeOf = (answer: string) =>
  StandardError.parse(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)));

describe('errors Fastify and its plugins raise with a 4xx status', () => {
  it('a static path outside the docs root is a 404 in the envelope, not a 500', async () => {
    for (const url of ['/docs/static/../../package.json', '/docs/static/%00.js']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(StandardError.parse(response.json()).errorCode).toBe('ROUTE404_NOT_FOUND');
      const head = await app.inject({ method: 'HEAD', url });
      expect(head.statusCode, `HEAD ${url}`).toBe(404);
    }
  });

  it('a payer page posted in a media type it does not read is a 400 page, not a 503', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/checkout/some-token/pay?lang=en',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('could not be read');
  });
});

describe('checkout links no payment can have', () => {
  it.each(['/checkout/', '/checkout/%00', '/checkout/%1B', '/checkout/return/not-a-uuid'])(
    '%s is the 404 page, without asking payments',
    async (url) => {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toContain('text/html');
    },
  );

  it('possibleToken passes real tokens as they are', () => {
    expect(possibleToken('ct_abc-DEF_123')).toBe('ct_abc-DEF_123');
    for (const token of ['', 'a'.repeat(256), 'a\u0000b', '\ud800']) {
      expect(() => possibleToken(token), JSON.stringify(token)).toThrow('no payment page here');
    }
  });
});

describe('requests refused before routing', () => {
  it('a request line the HTTP parser refuses is answered in the envelope', async () => {
    const answer = await raw('GET /docs/json HTTP/1.1\r\nhost: x\r\nx-bad: a\rb\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(envelopeOf(answer).errorCode).toBe('VALIDATION400_BAD_REQUEST');
  });

  it('headers past the size limit are answered in the envelope', async () => {
    const answer = await raw(
      `GET /docs/json HTTP/1.1\r\nhost: x\r\nx-huge: ${'h'.repeat(20_000)}\r\n\r\n`,
    );
    expect(envelopeOf(answer).message).toBe('request headers are too large');
  });

  it('a URL with broken percent-encoding, or an overlong parameter, gets the envelope', async () => {
    for (const url of ['/checkout/return/%zz', '/checkout/%ED%A0%80']) {
      const badUrl = await app.inject({ method: 'GET', url });
      expect(badUrl.statusCode, url).toBe(400);
      expect(badUrl.headers['content-type']).toContain('text/html');
    }
    const long = await app.inject({ method: 'GET', url: `/checkout/${'a'.repeat(200)}` });
    expect(long.statusCode).toBe(400);
    expect(long.headers['content-type']).toContain('text/html');
    const docs = await app.inject({ method: 'GET', url: '/docs/static/%zz' });
    expect(docs.statusCode).toBe(400);
    expect(StandardError.parse(docs.json()).errorCode).toBe('VALIDATION400_BAD_REQUEST');
  });

  it('CONNECT gets a 404 in the envelope instead of a closed connection', async () => {
    const answer = await raw('CONNECT /checkout/x HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(envelopeOf(answer).errorCode).toBe('ROUTE404_NOT_FOUND');
  });

  it('a CONNECT with a large body does not keep its connection open', async () => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `CONNECT /pay/x HTTP/1.1\r\nhost: x\r\ncontent-length: 10000000\r\n\r\n${'['.repeat(200_000)}`,
    );
    const closed = await new Promise<boolean>((resolve) => {
      socket.on('close', () => resolve(true));
      setTimeout(() => resolve(false), 3_000);
    });
    expect(closed).toBe(true);
    const open = await new Promise<number>((resolve) =>
      app.server.getConnections((_error, count) => resolve(count)),
    );
    expect(open).toBe(0);
  });
});
