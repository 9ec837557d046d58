import { StandardError } from '@dzpay/contracts';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
let merchant: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  stack = await startStack(
    'status-endpoint',
    { RATE_LIMIT_PER_MINUTE: '100000' },
    // Payments too: status checks every free stage against its rows (docs/status.md).
    { withQrConfig: false, withStatus: true, withPayments: true },
  );
  merchant = await stack.merchant('Partner shop');
});
afterAll(() => stack?.stop());

const status = (
  reference: string,
  headers: Record<string, string> = { 'x-api-key': merchant.testKey },
) => stack.get(`/partner/payments/v1/${reference}/status`, headers);

async function expectError(response: Response, code: number, errorCode: string) {
  expect(response.status).toBe(code);
  const body = StandardError.parse(await response.json());
  expect(body).toMatchObject({ statusCode: code, errorCode });
  return body;
}

describe('GET /partner/payments/v1/{reference}/status errors', () => {
  it.each([
    ['absent', {}],
    ['empty', { 'x-api-key': '' }],
    ['unknown', { 'x-api-key': `pk_test_${'U'.repeat(43)}` }],
  ])(
    '401 PARTNER_API401_UNAUTHORIZED when the key is %s',
    async (_case, headers: Record<string, string>) => {
      await expectError(await status('REF-1', headers), 401, 'PARTNER_API401_UNAUTHORIZED');
    },
  );

  it('401 when the key header is sent twice', async () => {
    const headers = new Headers();
    headers.append('x-api-key', merchant.testKey);
    headers.append('x-api-key', merchant.testKey);
    const response = await fetch(`${stack.gateway.url}/partner/payments/v1/REF-1/status`, {
      headers,
    });
    await expectError(response, 401, 'PARTNER_API401_UNAUTHORIZED');
  });

  it('401 when the merchant behind the key no longer exists', async () => {
    const gone = await stack.merchant('Gone shop');
    const sql = postgres(stack.infra.databaseUrl, { max: 1 });
    await sql`delete from accounts.merchants where id = ${gone.id}`;
    await sql.end();
    await expect
      .poll(async () => (await status('REF-1', { 'x-api-key': gone.testKey })).status, {
        timeout: 2_000,
      })
      .toBe(401);
  });

  it('403 PARTNER_API403_MERCHANT_INACTIVE with details.merchantId', async () => {
    const inactive = await stack.merchant('Inactive shop');
    const sql = postgres(stack.infra.databaseUrl, { max: 1 });
    await sql`update accounts.merchants set active = false where id = ${inactive.id}`;
    await sql.end();
    await expect
      .poll(async () => (await status('REF-1', { 'x-api-key': inactive.testKey })).status, {
        timeout: 2_000,
      })
      .toBe(403);
    const body = await expectError(
      await status('REF-1', { 'x-api-key': inactive.testKey }),
      403,
      'PARTNER_API403_MERCHANT_INACTIVE',
    );
    expect(body.details).toEqual({ merchantId: inactive.id });
  });

  it('400 VALIDATION400 with details.errors for an empty reference', async () => {
    const response = await stack.get('/partner/payments/v1//status', {
      'x-api-key': merchant.testKey,
    });
    const body = await expectError(response, 400, 'VALIDATION400');
    expect(body.details).toEqual({
      errors: [{ field: 'reference', errors: ['reference should not be empty'] }],
    });
  });

  it('400 VALIDATION400 for a reference of 256 characters', async () => {
    const body = await expectError(await status('R'.repeat(256)), 400, 'VALIDATION400');
    expect(body.details).toEqual({
      errors: [
        {
          field: 'reference',
          errors: ['reference must be shorter than or equal to 255 characters'],
        },
      ],
    });
  });

  it('400 VALIDATION400 for a reference with a NUL, not a 500', async () => {
    const response = await stack.get('/partner/payments/v1/%00/status', {
      'x-api-key': merchant.testKey,
    });
    const body = await expectError(response, 400, 'VALIDATION400');
    expect(body.details).toEqual({
      errors: [
        {
          field: 'reference',
          errors: ['reference must not contain control characters or broken Unicode'],
        },
      ],
    });
  });

  it('429 {statusCode, message} past 60 requests a minute per key, allowed again a minute later', async () => {
    const limited = await stack.merchant('Busy partner');
    const headers = { 'x-api-key': limited.testKey };
    const windowStart = Date.now();
    for (let i = 0; i < 60; i++) {
      const response = await status(`REF-${i}`, headers);
      const text = await response.text();
      expect(response.status, text).toBe(200);
    }
    const refused = await status('REF-61', headers);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['message', 'statusCode']);
    expect(body.statusCode).toBe(429);
    // Another key has its own minute.
    expect((await status('REF-1')).status).toBe(200);

    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, windowStart + 61_000 - Date.now())),
    );
    expect((await status('REF-62', headers)).status).toBe(200);
  }, 90_000);
});
