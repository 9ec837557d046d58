import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DzpayError, dzpayClient } from '../src/index.ts';
import { REGISTERED_ANSWER } from './registered-answer.ts';

// A real HTTP server answering as the gateway would, to check how the client reads
// successes and each error shape; the gateway itself is exercised through this client
// in system/.
let server: Server;
let baseUrl: string;
const answers = new Map<
  string,
  { status: number; body: unknown; headers?: Record<string, string> }
>();
const seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      const answer = answers.get(`${request.method} ${request.url}`) ?? { status: 404, body: {} };
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = () => dzpayClient({ baseUrl, apiKey: 'pk_test_abc' });

describe('dzpayClient', () => {
  it('sends the key, the JSON body and the Idempotency-Key, and returns the parsed data', async () => {
    answers.set('POST /api/v1/payments', REGISTERED_ANSWER);
    const payment = await client().registerPayment(
      { amount: 5000, currency: 'DZD', reference: 'R-1' },
      { idempotencyKey: 'k-1' },
    );
    expect(payment.checkoutUrl).toBe('https://pay.example.dz/checkout/x');
    const sent = seen.at(-1)!;
    expect(sent.headers['x-api-key']).toBe('pk_test_abc');
    expect(sent.headers['idempotency-key']).toBe('k-1');
    expect(JSON.parse(sent.body)).toEqual({ amount: 5000, currency: 'DZD', reference: 'R-1' });
  });

  it('URL-encodes references and ids', async () => {
    await client()
      .referenceStatus('A/B ?')
      .catch(() => undefined);
    expect(seen.at(-1)!.url).toBe('/partner/payments/v1/A%2FB%20%3F/status');
  });

  it('throws DzpayError with the errorCode of the standard envelope and Retry-After', async () => {
    answers.set('POST /api/v1/payments/p1/receipt/email', {
      status: 429,
      headers: { 'retry-after': '1800' },
      body: {
        statusCode: 429,
        message: 'at most 20 receipt emails per hour',
        errorCode: 'RATE429_LIMIT_EXCEEDED',
        timestamp: '2026-11-21T10:00:00.000Z',
        details: { limit: 20 },
      },
    });
    const error = await client()
      .emailReceipt('p1', { email: 'a@example.dz' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DzpayError);
    expect(error).toMatchObject({
      status: 429,
      errorCode: 'RATE429_LIMIT_EXCEEDED',
      retryAfterSeconds: 1800,
    });
  });

  it('reads the validation list of the QR endpoints, without an errorCode', async () => {
    answers.set('POST /set-qr-config', {
      status: 400,
      body: { statusCode: 400, message: ['token should not be empty'], error: 'Bad Request' },
    });
    const error = (await client()
      .setQrConfig({ token: '', amounts: [1], singleUse: false })
      .catch((thrown: unknown) => thrown)) as DzpayError;
    expect(error.errorCode).toBeUndefined();
    expect(error.message).toContain('token should not be empty');
  });

  it('refuses a success body that breaks the contract', async () => {
    answers.set('GET /api/v1/payments/p2', {
      status: 200,
      body: { statusCode: 200, message: 'x', data: {} },
    });
    await expect(client().getPayment('p2')).rejects.toThrow();
  });

  it('answers nothing for the 204 of un-set-qr-config', async () => {
    answers.set('POST /un-set-qr-config', { status: 204, body: undefined });
    await expect(client().unsetQrConfig({ token: 'QR1' })).resolves.toBeUndefined();
  });
});
