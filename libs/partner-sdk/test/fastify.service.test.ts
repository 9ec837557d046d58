import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dzpayProductLookup,
  dzpayWebhooks,
  partnerError,
  productResponse,
  type WebhookEvent,
} from '../src/index.ts';
import { dzpayHeaders, successEvent, unixNow, xHeaders } from './events.ts';

const secret = 'whsk-fastify-test';
const received: WebhookEvent[] = [];
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  app = Fastify({ logger: false, routerOptions: { maxParamLength: 255 } });
  await app.register(dzpayWebhooks, {
    signingSecrets: ['whsk-fastify-next', secret],
    async onEvent(event) {
      // Awaited: dzpay gets its 200 only once the event is stored.
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (event.data.reference === 'EXPLODES') throw new Error('database down');
      received.push(event);
    },
  });
  await app.register(dzpayProductLookup, {
    prefix: '/api',
    apiSecret: 'api-secret',
    lookup(reference) {
      if (reference.startsWith('MISSING')) return partnerError('NOT_FOUND', 'no such book');
      if (reference.startsWith('SOLD')) return partnerError('ALREADY_PAID', 'already sold');
      if (reference.startsWith('BROKEN')) throw new Error('database down');
      return productResponse({
        reference,
        amount: 1500.5,
        label: `Livre ${reference.slice(0, 20)}`,
      });
    },
  });
  // A route of the partner's own, outside the plugin: its JSON parsing must be untouched.
  app.post('/orders', (request) => ({ parsed: request.body }));
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(() => app.close());

const post = (body: string | Buffer, headers: Record<string, string>) =>
  fetch(`${url}/webhooks/platform`, { method: 'POST', body, headers });

function receivedWithId(id: string) {
  return received.filter((event) => event.id === id);
}

describe('the dzpayWebhooks plugin', () => {
  it('answers {"success": true} after calling onEvent once with the typed event', async () => {
    const event = successEvent();
    const body = JSON.stringify(event);
    const response = await post(body, dzpayHeaders(body, secret, unixNow(), event.id));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true });
    expect(receivedWithId(event.id)).toEqual([event]);
  });

  it('verifies the bytes as sent: a pretty-printed body signed as such is accepted', async () => {
    const event = successEvent();
    const body = `${JSON.stringify(event, null, 2)}\n`;
    const response = await post(body, xHeaders(body, secret));
    expect(response.status).toBe(200);
    expect(receivedWithId(event.id)).toHaveLength(1);
  });

  it('rejects the same JSON with other whitespace than what was signed', async () => {
    const event = successEvent();
    const signed = JSON.stringify(event);
    const response = await post(JSON.stringify(event, null, 1), xHeaders(signed, secret));
    expect(response.status).toBe(401);
    expect(receivedWithId(event.id)).toEqual([]);
  });

  it('answers 401 UNAUTHORIZED for a tampered body, without calling onEvent', async () => {
    const event = successEvent();
    const body = JSON.stringify(event);
    const response = await post(body.replace('1500.5', '1.5'), dzpayHeaders(body, secret));
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: 'UNAUTHORIZED',
      errorMessage: 'the signature does not match',
    });
    expect(receivedWithId(event.id)).toEqual([]);
  });

  it('answers 401 for a stale timestamp and for missing headers', async () => {
    const body = JSON.stringify(successEvent());
    const stale = await post(body, dzpayHeaders(body, secret, unixNow() - 301));
    expect(stale.status).toBe(401);
    const bare = await post(body, { 'content-type': 'application/json' });
    expect(bare.status).toBe(401);
  });

  it('accepts the second secret of a rotation', async () => {
    const event = successEvent();
    const body = JSON.stringify(event);
    const response = await post(body, dzpayHeaders(body, 'whsk-fastify-next', unixNow(), event.id));
    expect(response.status).toBe(200);
    expect(receivedWithId(event.id)).toHaveLength(1);
  });

  it('answers 400 for a correctly signed body that is not an event', async () => {
    const body = JSON.stringify({ hello: 'world' });
    const response = await post(body, xHeaders(body, secret));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'BAD_REQUEST' });
  });

  it('answers 503 SERVICE_UNAVAILABLE when onEvent throws, so dzpay retries', async () => {
    const body = JSON.stringify(successEvent({ reference: 'EXPLODES' }));
    const response = await post(body, xHeaders(body, secret));
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: 'SERVICE_UNAVAILABLE' });
  });

  it('leaves JSON parsing of the partner’s other routes alone', async () => {
    const response = await fetch(`${url}/orders`, {
      method: 'POST',
      body: JSON.stringify({ book: 42 }),
      headers: { 'content-type': 'application/json' },
    });
    expect(await response.json()).toEqual({ parsed: { book: 42 } });
  });
});

describe('the dzpayProductLookup plugin', () => {
  const lookup = (reference: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/api/${encodeURIComponent(reference)}`, {
      headers: {
        authorization: 'Bearer api-secret',
        'x-timestamp': String(unixNow()),
        accept: 'application/json',
        ...headers,
      },
    });

  it('answers the product for a URL-encoded reference', async () => {
    const response = await lookup('BOOK/42 #1');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      reference: 'BOOK/42 #1',
      amount: 1500.5,
      currency: 'DZD',
      label: 'Livre BOOK/42 #1',
    });
  });

  it('answers a 255-character reference (with maxParamLength raised to 255)', async () => {
    const reference = `B${'é'.repeat(254)}`;
    const response = await lookup(reference);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { reference: string }).reference).toBe(reference);
  });

  it('answers the partner errors with their statuses', async () => {
    const missing = await lookup('MISSING-1');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'NOT_FOUND', errorMessage: 'no such book' });
    expect((await lookup('SOLD-1')).status).toBe(409);
    const broken = await lookup('BROKEN-1');
    expect(broken.status).toBe(503);
    expect(await broken.json()).toMatchObject({ error: 'SERVICE_UNAVAILABLE' });
  });

  it('answers 401 to a wrong secret or a stale timestamp', async () => {
    expect((await lookup('BOOK-1', { authorization: 'Bearer guess' })).status).toBe(401);
    expect((await lookup('BOOK-1', { 'x-timestamp': String(unixNow() - 301) })).status).toBe(401);
  });
});
