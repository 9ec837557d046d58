import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookHandler, type WebhookEvent } from '../src/index.ts';
import { dzpayHeaders, successEvent, unixNow, xHeaders } from './events.ts';

const secret = 'whsk-node-test';
const received: WebhookEvent[] = [];
const failures: unknown[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer(
    createWebhookHandler({
      signingSecret: secret,
      maxBodyBytes: 64 * 1024,
      async onEvent(event) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (event.data.reference === 'EXPLODES') throw new Error('database down');
        received.push(event);
      },
      onError: (error) => failures.push(error),
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  url = `http://127.0.0.1:${port}/webhooks/platform`;
});

afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

const post = (body: string | Buffer, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', body, headers });

const receivedWithId = (id: string) => received.filter((event) => event.id === id);

/** Sends the body in several writes, as a chunked request, to prove chunks are joined exactly. */
function postInChunks(chunks: Buffer[], headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}

describe('createWebhookHandler', () => {
  it('answers {"success": true} after calling onEvent once', async () => {
    const event = successEvent();
    const body = JSON.stringify(event);
    const response = await post(body, dzpayHeaders(body, secret, unixNow(), event.id));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ success: true });
    expect(receivedWithId(event.id)).toEqual([event]);
  });

  it('joins a body sent in chunks byte for byte, multi-byte characters split included', async () => {
    const event = successEvent({ reference: 'نجمة-42' });
    const body = JSON.stringify(event);
    const bytes = Buffer.from(body);
    const split = bytes.indexOf(Buffer.from('نجمة')) + 1; // inside a two-byte character
    const response = await postInChunks([bytes.subarray(0, split), bytes.subarray(split)], {
      ...xHeaders(body, secret),
      'content-type': 'application/json',
    });
    expect(response.status).toBe(200);
    expect(receivedWithId(event.id)).toHaveLength(1);
  });

  it('rejects a tampered body with 401 and other whitespace with 401, without onEvent', async () => {
    const event = successEvent();
    const body = JSON.stringify(event);
    const tampered = await post(body.replace('BOOK-42', 'BOOK-43'), xHeaders(body, secret));
    expect(tampered.status).toBe(401);
    expect(await tampered.json()).toMatchObject({ error: 'UNAUTHORIZED' });
    const spaced = await post(JSON.stringify(event, null, 2), xHeaders(body, secret));
    expect(spaced.status).toBe(401);
    expect(receivedWithId(event.id)).toEqual([]);
  });

  it('rejects a stale and a future timestamp with 401', async () => {
    const body = JSON.stringify(successEvent());
    expect((await post(body, xHeaders(body, secret, unixNow() - 301))).status).toBe(401);
    expect((await post(body, xHeaders(body, secret, unixNow() + 301))).status).toBe(401);
  });

  it('answers 400 to a signed body that is not JSON', async () => {
    const response = await post('{"id":', xHeaders('{"id":', secret));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'BAD_REQUEST',
      errorMessage: 'the body is not JSON',
    });
  });

  it('answers 503 and reports the error when onEvent throws', async () => {
    const body = JSON.stringify(successEvent({ reference: 'EXPLODES' }));
    const response = await post(body, xHeaders(body, secret));
    expect(response.status).toBe(503);
    expect(failures.at(-1)).toBeInstanceOf(Error);
  });

  it('answers 405 to anything but POST and 413 to a body over the limit', async () => {
    expect((await fetch(url)).status).toBe(405);
    const huge = 'x'.repeat(65 * 1024);
    const response = await post(huge, xHeaders(huge, secret));
    expect(response.status).toBe(413);
  });
});
