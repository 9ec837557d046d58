import { EmailReceiptBody, RegisterPaymentBody, SetQrConfigBody } from '@dzpay/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../services/gateway/src/routes/operations.ts';
import { openApiDocument } from '../../services/gateway/src/routes/shared/openapi-document.ts';
import { encodeSegment } from './hostile.ts';
import { parseRawResponse, type Answer } from './http.ts';
import { inEnvelope, problemsOf } from './judge.ts';
import { requestArbitrary, routeTargets, type OpenApiDocument } from './requests.ts';
import { schemaArbitrary } from './schema.ts';
import type { World } from './world.ts';

const document = openApiDocument('http://127.0.0.1', {
  operations: OPERATIONS,
}) as unknown as OpenApiDocument;
const world: World = {
  merchantId: '7f0c1f3e-7a5b-4c7e-9d2a-0f5b8c1d2e3f',
  inactiveMerchantId: '1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d',
  keys: {
    test: `pk_test_${'A'.repeat(43)}`,
    live: `pk_live_${'B'.repeat(43)}`,
    inactive: `pk_test_${'C'.repeat(43)}`,
    revoked: `pk_test_${'D'.repeat(43)}`,
  },
  qrTokens: ['QRAY674KF1K1BX34DN2RPY'],
  checkoutTokens: ['ct_token'],
  paymentIds: ['0d9f4a3c-2b1e-4f5a-8c7d-6e5f4a3b2c1d'],
  deliveryIds: ['5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d'],
  references: ['BOOK-1'],
};
const answer = (status: number, body: unknown, contentType = 'application/json'): Answer => ({
  kind: 'answer',
  status,
  headers: { 'content-type': contentType },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  ms: 1,
});
const get = (target: string) => ({ route: 'x', method: 'GET', target, headers: [] });

describe('bodies generated from the OpenAPI document', () => {
  it.each([
    ['/api/v1/payments', RegisterPaymentBody],
    ['/set-qr-config', SetQrConfigBody],
    ['/api/v1/payments/{id}/receipt/email', EmailReceiptBody],
  ] as const)('for %s, schema-valid values mostly pass the zod contract too', (path, contract) => {
    const schema = document.paths[path]!.post!.requestBody!.content['application/json']!.schema!;
    const hints = {
      token: fc.constant('QR1'),
      amounts: fc.constant([15.5]),
      expiresAt: fc.constant(null),
      currency: fc.constant('DZD'),
      successUrl: fc.webUrl(),
      failureUrl: fc.webUrl(),
      email: fc.emailAddress(),
    };
    const values = fc.sample(schemaArbitrary(schema, document.components.schemas, hints), {
      numRuns: 200,
      seed: 1,
    });
    const accepted = values.filter((value) => contract.safeParse(value).success).length;
    expect(accepted / values.length).toBeGreaterThan(0.8);
  });

  it('aims at every registered route, the not-found answer too', () => {
    const served = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({
        method: method.toUpperCase(),
        url: path.replace(/\{(\w+)\}/g, ':$1'),
      })),
    );
    const routes = routeTargets(document, served);
    const aimed = new Set(
      fc
        .sample(requestArbitrary(routes, document, world), { numRuns: 2_000, seed: 3 })
        .map((request) => request.route),
    );
    expect(aimed.size).toBe(routes.length + 1);
  });
});

describe('the properties', () => {
  it('accept the three envelopes, each only with its status', () => {
    const standard = {
      statusCode: 404,
      message: 'no',
      errorCode: 'ROUTE404_NOT_FOUND',
      timestamp: new Date().toISOString(),
    };
    expect(inEnvelope(404, standard)).toBe(true);
    expect(inEnvelope(400, standard)).toBe(false);
    expect(inEnvelope(400, { statusCode: 400, message: ['x'], error: 'Bad Request' })).toBe(true);
    expect(inEnvelope(429, { statusCode: 429, message: 'slow down' })).toBe(true);
    expect(inEnvelope(400, { statusCode: 400, message: 'Client Error', error: 'x' })).toBe(false);
  });

  it('flag 5xx, hangs, silence, and errors outside the envelope; allow pages on page paths', () => {
    expect(problemsOf(get('/api/v1/payments/x'), answer(500, {}))).toContain('answered 500');
    expect(problemsOf(get('/x'), { kind: 'hang', ms: 10_000 })).toHaveLength(1);
    expect(problemsOf(get('/x'), { kind: 'no-answer', error: 'reset', ms: 1 })).toHaveLength(1);
    expect(problemsOf(get('/x'), answer(400, { error: 'Bad Request' }))).toHaveLength(1);
    expect(problemsOf(get('/x'), answer(404, 'nope', 'text/plain'))).toHaveLength(1);
    expect(problemsOf(get('/qr/x'), answer(404, '<html>', 'text/html'))).toEqual([]);
    expect(problemsOf(get('/link/x'), answer(404, '<html>', 'text/html'))).toEqual([]);
    expect(problemsOf(get('/api/v1/payments/x'), answer(404, '<html>', 'text/html'))).toHaveLength(
      1,
    );
    expect(problemsOf(get('/qr/x'), answer(303, ''))).toEqual([]);
    expect(problemsOf(get('/dashboard/payments/x'), answer(404, '<html>', 'text/html'))).toEqual(
      [],
    );
    expect(problemsOf(get('/dashboard/payments/x'), answer(500, '<html>', 'text/html'))).toContain(
      'answered 500',
    );
  });
});

describe('the raw client', () => {
  it('reads status, headers and a body by length or chunks, skipping 100 Continue', () => {
    const byLength = parseRawResponse(
      Buffer.from(
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}',
      ),
    );
    expect(byLength).toMatchObject({ status: 404 });
    expect(byLength!.body.toString()).toBe('{}');
    const chunked = parseRawResponse(
      Buffer.from(
        'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nab\r\n1\r\nc\r\n0\r\n\r\n',
      ),
    );
    expect(chunked!.body.toString()).toBe('abc');
    expect(
      parseRawResponse(Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab')),
    ).toBeNull();
  });

  it('encodes lone surrogates as the CESU-8 bytes careless encoders write', () => {
    expect(encodeSegment('a\ud800b')).toBe('a%ED%A0%80b');
    expect(encodeSegment('é/')).toBe('%C3%A9%2F');
  });
});
