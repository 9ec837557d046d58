import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DzpayConnectionError, DzpayError, dzpayClient } from '../src/index.ts';
import { REGISTERED_ANSWER } from './registered-answer.ts';

// A real HTTP server that answers from a script, one line per request: the client's
// retries seen from the wire (how many tries, with which key and body).
type Line = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang-up';
let script: Line[] = [];
const tries: { method: string; url: string; key: string | undefined; body: string }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const key = request.headers['idempotency-key'];
      tries.push({ method: request.method!, url: request.url!, key: key as string, body });
      const line = script.shift() ?? { status: 500, body: {} };
      if (line === 'hang-up') return void request.socket.destroy();
      response.writeHead(line.status, { 'content-type': 'application/json', ...line.headers });
      response.end(JSON.stringify(line.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  script = [];
  tries.length = 0;
});

const client = (options: { maxRetries?: number } = {}) =>
  dzpayClient({ baseUrl, apiKey: 'pk_test_abc', ...options });
const unavailable = (retryAfter = '0'): Line => ({
  status: 503,
  headers: { 'retry-after': retryAfter },
  body: {
    statusCode: 503,
    errorCode: 'SERVICE503_UNAVAILABLE',
    message: 'try again',
    timestamp: '2026-11-27T10:00:00.000Z',
  },
});
const limited: Line = {
  status: 429,
  headers: { 'retry-after': '0' },
  body: { statusCode: 429, error: 'Too Many Requests', message: 'Rate limit exceeded' },
};
const registered: Line = REGISTERED_ANSWER;
const register = (options?: { idempotencyKey: string }) =>
  client().registerPayment({ amount: 5000, currency: 'DZD', reference: 'R-1' }, options);

describe('the client sends again', () => {
  it('a registration after a 503, with the same Idempotency-Key and body', async () => {
    script = [unavailable(), registered];
    expect((await register({ idempotencyKey: 'order-1' })).reference).toBe('R-1');
    expect(tries.map((sent) => sent.key)).toEqual(['order-1', 'order-1']);
    expect(tries[1]!.body).toBe(tries[0]!.body);
  });

  it('a registration without a key of the caller under a key of its own, the same each try', async () => {
    script = [unavailable(), registered];
    await register();
    const [first, second] = tries;
    expect(first!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.key).toBe(first!.key);
  });

  it('a read after a lost connection', async () => {
    script = [
      'hang-up',
      { status: 200, body: { statusCode: 200, message: 'ok', data: { balance: 1 } } },
    ];
    await client()
      .getBalance()
      .catch(() => undefined);
    expect(tries).toHaveLength(2);
  });

  it('any request after a 429, at most twice more by default', async () => {
    script = [limited, limited, limited, registered];
    const error = await register().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DzpayError);
    expect((error as DzpayError).status).toBe(429);
    expect(tries).toHaveLength(3);
  });
});

describe('the client waits out', () => {
  it("a 409 that says the key's first request still runs (a retry overtook it)", async () => {
    script = [
      'hang-up',
      {
        status: 409,
        body: {
          statusCode: 409,
          errorCode: 'IDEMPOTENCY409_KEY_REUSED',
          message: 'a request with this Idempotency-Key is still running; retry shortly',
          details: { inProgress: true },
          timestamp: '2026-11-27T10:00:00.000Z',
        },
      },
      registered,
    ];
    expect((await register({ idempotencyKey: 'order-4' })).reference).toBe('R-1');
    expect(tries.map((sent) => sent.key)).toEqual(['order-4', 'order-4', 'order-4']);
  });
});

describe('what the caller gets to send again with', () => {
  it('the key on the error when dzpay never answered', async () => {
    script = ['hang-up', 'hang-up', 'hang-up'];
    const error = await register({ idempotencyKey: 'order-5' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DzpayConnectionError);
    expect((error as DzpayConnectionError).idempotencyKey).toBe('order-5');
    expect(tries).toHaveLength(3);
  });

  it('the key made for the call on the error dzpay answered', async () => {
    script = [unavailable('1800')];
    const error = (await register().catch((thrown: unknown) => thrown)) as DzpayError;
    expect(error.idempotencyKey).toBe(tries[0]!.key);
    expect(error.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the client does not send again', () => {
  it('a single-use QR setting after a 503: a payer may have used it in between', async () => {
    const body = { token: 'q1', amounts: [1500], singleUse: true };
    script = [unavailable(), { status: 200, body: { statusCode: 200, message: 'ok' } }];
    await expect(client().setQrConfig(body)).rejects.toMatchObject({ status: 503 });
    expect(tries).toHaveLength(1);
    tries.length = 0;
    script = [unavailable(), { status: 200, body: { statusCode: 200, message: 'ok' } }];
    await client().setQrConfig({ ...body, singleUse: false });
    expect(tries).toHaveLength(2);
  });

  it('a receipt email after a 503: it may have left', async () => {
    script = [unavailable(), { status: 200, body: {} }];
    await expect(client().emailReceipt('p1', { email: 'payer@example.dz' })).rejects.toMatchObject({
      status: 503,
      errorCode: 'SERVICE503_UNAVAILABLE',
    });
    expect(tries).toHaveLength(1);
  });

  it('when dzpay asks to wait longer than a minute: the caller gets retryAfterSeconds', async () => {
    script = [unavailable('1800'), registered];
    await expect(register({ idempotencyKey: 'order-2' })).rejects.toMatchObject({
      status: 503,
      retryAfterSeconds: 1800,
    });
    expect(tries).toHaveLength(1);
  });

  it('anything with maxRetries: 0', async () => {
    script = [limited, registered];
    await expect(
      client({ maxRetries: 0 }).registerPayment({
        amount: 5000,
        currency: 'DZD',
        reference: 'R-1',
      }),
    ).rejects.toMatchObject({ status: 429 });
    expect(tries).toHaveLength(1);
  });

  it('a chosen error such as a 409', async () => {
    script = [
      {
        status: 409,
        body: {
          statusCode: 409,
          errorCode: 'PAYMENT_INSTANCE409_DUPLICATE_REFERENCE',
          message: 'duplicate',
          timestamp: '2026-11-27T10:00:00.000Z',
        },
      },
    ];
    await expect(register({ idempotencyKey: 'order-3' })).rejects.toMatchObject({ status: 409 });
    expect(tries).toHaveLength(1);
  });
});
