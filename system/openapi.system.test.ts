import { Validator } from '@seriousme/openapi-schema-validator';
import { ErrorCatalog, httpStatusOf, StandardError, type ErrorCode } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedRoutes } from '../services/gateway/src/app.ts';
import { API_OPERATIONS, OPERATIONS } from '../services/gateway/src/routes/operations.ts';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
let document: {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
};

beforeAll(async () => {
  stack = await startStack('openapi', {}, { withQrConfig: false });
  const response = await stack.get('/docs/json');
  expect(response.status).toBe(200);
  document = (await response.json()) as typeof document;
});
afterAll(() => stack?.stop());

/** Fastify's `:name` parameters written the OpenAPI way. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

/** Routes that are not part of the API: the docs themselves, HEAD twins, the favicon. */
const internal = (route: { method: string; url: string }) =>
  route.method === 'HEAD' ||
  route.url.startsWith('/docs') ||
  route.url === '/favicon.ico' ||
  // The empty-reference variant of the status route, which only answers the spec's 400.
  route.url === '/partner/payments/v1//status';

describe('the OpenAPI document at /docs/json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("has every API route the gateway serves, and serves every route it has; the payer's pages are described beside it", () => {
    const served = servedRoutes(stack.gateway.app).filter((route) => !internal(route));
    expect(served.length).toBeGreaterThan(15);
    const described = new Set(OPERATIONS.map(({ method, path }) => `${method} ${path}`));
    const api = new Set(API_OPERATIONS.map(({ method, path }) => `${method} ${path}`));
    for (const route of served) {
      const name = `${route.method.toLowerCase()} ${openApiPath(route.url)}`;
      expect(described.has(name), `${route.method} ${route.url} is not described`).toBe(true);
      const operation = document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      // An API route is in the document; a payer's page (HTML) is not.
      expect(operation !== undefined, `${name} in the API document`).toBe(api.has(name));
    }
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const method of Object.keys(methods)) {
        const url = path.replace(/\{(\w+)\}/g, ':$1');
        expect(
          stack.gateway.app.hasRoute({ method: method.toUpperCase(), url }),
          `${method} ${path} is documented but not served`,
        ).toBe(true);
      }
    }
  });

  it('has examples that the contracts schemas accept, and error examples of the right status', () => {
    for (const operation of API_OPERATIONS) {
      const where = `${operation.method} ${operation.path}`;
      if (operation.body && 'schema' in operation.body) {
        const parsed = operation.body.schema.safeParse(operation.body.example);
        expect(parsed.success, `${where} request example: ${parsed.error?.message}`).toBe(true);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if ('json' in response) {
          const parsed = response.json.safeParse(response.example);
          expect(parsed.success, `${where} ${status} example: ${parsed.error?.message}`).toBe(true);
        }
        if ('errors' in response) {
          for (const code of response.errors) {
            expect(httpStatusOf(code), `${where}: ${code} under ${status}`).toBe(Number(status));
            const example = (
              document.paths[operation.path]![operation.method]!.responses[status] as {
                content: { 'application/json': { examples: Record<string, { value: unknown }> } };
              }
            ).content['application/json'].examples[code]!.value;
            expect(StandardError.parse(example).errorCode).toBe(code);
          }
        }
      }
    }
  });

  it("lists the spec's error codes on their endpoints, and every code of the catalog", () => {
    const codesOf = (method: string, path: string) =>
      JSON.stringify(document.paths[path]![method]!.responses);
    const spec: Record<string, [string, string, ErrorCode[]]> = {
      qr: ['post', '/set-qr-config', ['AUTH401_UNAUTHORIZED_ACCESS', 'QR_CODE404_NOT_FOUND']],
      status: [
        'get',
        '/partner/payments/v1/{reference}/status',
        ['VALIDATION400', 'PARTNER_API401_UNAUTHORIZED', 'PARTNER_API403_MERCHANT_INACTIVE'],
      ],
      register: [
        'post',
        '/api/v1/payments',
        [
          'VALIDATION400_BAD_REQUEST',
          'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
          'PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY',
          'VALIDATION422_UNPROCESSABLE_ENTITY',
          'PAYMENT_INSTANCE409_DUPLICATE_REFERENCE',
          'SETTLEMENT422_MERCHANT_WALLET_MISSING',
          'CARDNET502_REGISTRATION_FAILED',
        ],
      ],
      receipt: [
        'post',
        '/api/v1/payments/{id}/receipt/email',
        [
          'VALIDATION400_BAD_REQUEST',
          'PAYMENT_INSTANCE404_NOT_FOUND',
          'RECEIPT409_NOT_AVAILABLE',
          'RATE429_LIMIT_EXCEEDED',
          'RECEIPT502_EMAIL_FAILED',
        ],
      ],
    };
    for (const [name, [method, path, codes]] of Object.entries(spec)) {
      for (const code of codes) expect(codesOf(method, path), `${name}: ${code}`).toContain(code);
    }
    const whole = JSON.stringify(document);
    for (const code of Object.keys(ErrorCatalog)) expect(whole, code).toContain(`\`${code}\``);
  });
});

describe('the API reference at /docs', () => {
  it('serves Swagger UI from the package, under its own Content-Security-Policy', async () => {
    const page = await stack.get('/docs/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('swagger-ui');
    expect(html).not.toMatch(/src="https?:\/\//);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const bundle = await stack.get('/docs/static/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
  });
});
