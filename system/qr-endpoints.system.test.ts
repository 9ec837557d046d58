import { StandardError, ValidationList } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsRepository } from '@dzpay/accounts';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
let merchant: Awaited<ReturnType<Stack['merchant']>>;
let other: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  // The 1 000-call concurrency test must not meet the per-key rate limit.
  stack = await startStack('qr-endpoints', { RATE_LIMIT_PER_MINUTE: '100000' });
  merchant = await stack.merchant('Librairie Tassili');
  other = await stack.merchant('Café Bab El Oued');
});
afterAll(() => stack?.stop());

const auth = (key: string) => ({ 'x-api-key': key });

async function expectValidation(response: Response, messages: string[]) {
  expect(response.status).toBe(400);
  const body = ValidationList.parse(await response.json());
  expect(body).toEqual({ statusCode: 400, message: messages, error: 'Bad Request' });
}

async function expectStandard(response: Response, status: number, errorCode: string) {
  expect(response.status).toBe(status);
  const body = StandardError.parse(await response.json());
  expect(body.statusCode).toBe(status);
  expect(body.errorCode).toBe(errorCode);
  expect(Date.parse(body.timestamp)).not.toBeNaN();
  return body;
}

describe('POST /set-qr-config', () => {
  it('answers 200 {statusCode, message} and stores amounts as integer centimes', async () => {
    const token = await stack.qrCode(merchant.id);
    const response = await stack.post(
      '/set-qr-config',
      { token, amounts: [1500, 2500.5, 50.29], singleUse: true },
      auth(merchant.testKey),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['message', 'statusCode']);
    expect(body.statusCode).toBe(200);
    expect(typeof body.message).toBe('string');

    const stored = await stack.readQr(token);
    expect(stored.state).toBe('configured');
    expect(stored.config).toMatchObject({
      amounts: [150000, 250050, 5029],
      expiresAt: null,
      singleUse: true,
    });
  });

  it('replaces the previous configuration entirely', async () => {
    const token = await stack.qrCode(merchant.id);
    const first = {
      token,
      amounts: [100, 200, 300],
      expiresAt: '2099-01-01T00:00:00Z',
      singleUse: true,
    };
    expect((await stack.post('/set-qr-config', first, auth(merchant.testKey))).status).toBe(200);
    const second = { token, amounts: [999.99], singleUse: false };
    expect((await stack.post('/set-qr-config', second, auth(merchant.testKey))).status).toBe(200);

    const stored = await stack.readQr(token);
    expect(stored.config).toMatchObject({
      amounts: [99999],
      expiresAt: null,
      singleUse: false,
      version: 2,
    });
  });

  it('treats an expired configuration as none, and a new one can be set at once', async () => {
    const token = await stack.qrCode(merchant.id);
    const expiresAt = new Date(Date.now() + 1_000).toISOString();
    const set = { token, amounts: [500], expiresAt, singleUse: false };
    expect((await stack.post('/set-qr-config', set, auth(merchant.testKey))).status).toBe(200);
    expect((await stack.readQr(token)).state).toBe('configured');

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await stack.readQr(token)).state).toBe('expired');

    const renewed = { token, amounts: [700], singleUse: false };
    expect((await stack.post('/set-qr-config', renewed, auth(merchant.testKey))).status).toBe(200);
    const stored = await stack.readQr(token);
    expect(stored.state).toBe('configured');
    expect(stored.config?.amounts).toEqual([70000]);
  });

  it('leaves exactly one whole configuration after 1 000 concurrent calls on one token', async () => {
    const token = await stack.qrCode(merchant.id);
    // Every field is derived from i, so a row mixing two requests would be caught.
    const bodyFor = (i: number) => ({
      token,
      amounts: [i + 50, i + 51],
      expiresAt: new Date(Date.UTC(2030, 0, 1) + i * 60_000).toISOString(),
      singleUse: i % 2 === 0,
    });
    const statuses = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        stack.post('/set-qr-config', bodyFor(i), auth(merchant.testKey)).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);

    const stored = await stack.readQr(token);
    const winner = stored.config!.amounts[0]! / 100 - 50;
    const expected = bodyFor(winner);
    expect(stored.config).toMatchObject({
      amounts: [expected.amounts[0]! * 100, expected.amounts[1]! * 100],
      expiresAt: expected.expiresAt,
      singleUse: expected.singleUse,
      version: 1000,
    });
  });

  describe('400 validation list, one message per failed rule', () => {
    let token: string;
    beforeAll(async () => {
      token = await stack.qrCode(merchant.id);
    });
    const post = (body: unknown) => stack.post('/set-qr-config', body, auth(merchant.testKey));

    it('token must be a string', async () => {
      await expectValidation(await post({ token: 12, amounts: [50], singleUse: true }), [
        'token must be a string',
      ]);
    });
    it('token should not be empty', async () => {
      await expectValidation(await post({ token: '', amounts: [50], singleUse: true }), [
        'token should not be empty',
      ]);
    });
    it('amounts must contain at least 1 element', async () => {
      await expectValidation(await post({ token, amounts: [], singleUse: true }), [
        'amounts must contain at least 1 element',
      ]);
    });
    it('expiresAt must be a valid ISO 8601 date string', async () => {
      await expectValidation(
        await post({ token, amounts: [50], expiresAt: '31/12/2030', singleUse: true }),
        ['expiresAt must be a valid ISO 8601 date string'],
      );
    });
    it('singleUse must be a boolean', async () => {
      await expectValidation(await post({ token, amounts: [50], singleUse: 'true' }), [
        'singleUse must be a boolean',
      ]);
    });
    it('amounts must be positive, with at most two decimals, at most 20 of them', async () => {
      await expectValidation(await post({ token, amounts: [0, -1], singleUse: true }), [
        'each value in amounts must be a positive number',
      ]);
      await expectValidation(await post({ token, amounts: [1.001], singleUse: true }), [
        'each value in amounts must have at most 2 decimal places',
      ]);
      await expectValidation(await post({ token, amounts: Array(21).fill(5), singleUse: true }), [
        'amounts must contain no more than 20 elements',
      ]);
    });
    it('expiresAt in the past is refused', async () => {
      await expectValidation(
        await post({ token, amounts: [50], expiresAt: '2020-01-01T00:00:00Z', singleUse: true }),
        ['expiresAt must be in the future'],
      );
    });
    it('lists every broken rule of a wholly wrong body', async () => {
      await expectValidation(
        await post({ token: null, amounts: 'x', expiresAt: 5, singleUse: 1 }),
        [
          'token should not be empty',
          'token must be a string',
          'amounts must be an array',
          'expiresAt must be a valid ISO 8601 date string',
          'singleUse must be a boolean',
        ],
      );
    });
    it('malformed JSON is a 400 in the same shape', async () => {
      await expectValidation(await post('{"token": "QR1", amounts: [1]'), [
        'request body must be valid JSON',
      ]);
    });
    it('a wrong content type is a 400 in the same shape', async () => {
      const response = await stack.post('/set-qr-config', 'token=QR1', {
        ...auth(merchant.testKey),
        'content-type': 'application/x-www-form-urlencoded',
      });
      await expectValidation(response, ['Content-Type must be application/json']);
    });
    it('a text/plain body is a wrong content type, not a string to validate', async () => {
      const response = await stack.post('/set-qr-config', JSON.stringify({ token }), {
        ...auth(merchant.testKey),
        'content-type': 'text/plain',
      });
      await expectValidation(response, ['Content-Type must be application/json']);
    });
    it('a token with control characters is a 400, not a database error', async () => {
      await expectValidation(await post({ token: 'QR\u0000X', amounts: [50], singleUse: true }), [
        'token must not contain control characters',
      ]);
      const unset = await stack.post(
        '/un-set-qr-config',
        { token: 'QR\u0000X' },
        auth(merchant.testKey),
      );
      await expectValidation(unset, ['token must not contain control characters']);
    });
    it('an amount below one centime is a 400, not a 500', async () => {
      await expectValidation(await post({ token, amounts: [0.000000001], singleUse: true }), [
        'each value in amounts must have at most 2 decimal places',
      ]);
    });
    it('an empty JSON body is a 400 in the same shape', async () => {
      await expectValidation(await post(''), ['request body should not be empty']);
    });
    it('a missing body is a 400 listing every required field', async () => {
      const response = await fetch(`${stack.gateway.url}/set-qr-config`, {
        method: 'POST',
        headers: auth(merchant.testKey),
      });
      await expectValidation(response, [
        'token should not be empty',
        'token must be a string',
        'amounts must be an array',
        'amounts must contain at least 1 element',
        'singleUse must be a boolean',
      ]);
    });
    it('a body that is not an object is a 400', async () => {
      const response = await post([token]);
      expect(response.status).toBe(400);
      expect(ValidationList.parse(await response.json()).message[0]).toBe(
        'request body must be a JSON object',
      );
    });
    it('a body over 64 KB is a 400 in the same shape', async () => {
      const huge = { token, amounts: [50], singleUse: true, pad: 'x'.repeat(70_000) };
      await expectValidation(await post(huge), ['request body is too large']);
    });
  });

  it('404 QR_CODE404_NOT_FOUND with details.token for an unknown token', async () => {
    const response = await stack.post(
      '/set-qr-config',
      { token: 'QR-DOES-NOT-EXIST', amounts: [50], singleUse: false },
      auth(merchant.testKey),
    );
    const body = await expectStandard(response, 404, 'QR_CODE404_NOT_FOUND');
    expect(body.details).toEqual({ token: 'QR-DOES-NOT-EXIST' });
  });

  it('echoes the token as sent in details.token', async () => {
    const response = await stack.post(
      '/un-set-qr-config',
      { token: '  spaced token  ' },
      auth(merchant.testKey),
    );
    const body = await expectStandard(response, 404, 'QR_CODE404_NOT_FOUND');
    expect(body.details).toEqual({ token: '  spaced token  ' });
  });

  it("answers another merchant's token exactly like an unknown one, and leaves it alone", async () => {
    const token = await stack.qrCode(other.id);
    const response = await stack.post(
      '/set-qr-config',
      { token, amounts: [50], singleUse: false },
      auth(merchant.testKey),
    );
    const body = await expectStandard(response, 404, 'QR_CODE404_NOT_FOUND');
    expect(body.details).toEqual({ token });
    expect((await stack.readQr(token)).state).toBe('none');
  });

  it("keeps modes apart: a test key cannot configure the merchant's live QR code", async () => {
    const token = await stack.qrCode(merchant.id, 'live');
    const body = { token, amounts: [50], singleUse: false };
    await expectStandard(
      await stack.post('/set-qr-config', body, auth(merchant.testKey)),
      404,
      'QR_CODE404_NOT_FOUND',
    );
    expect((await stack.post('/set-qr-config', body, auth(merchant.liveKey))).status).toBe(200);
  });
});

describe('POST /un-set-qr-config', () => {
  it('answers 204 with an empty body and removes the configuration', async () => {
    const token = await stack.qrCode(merchant.id);
    await stack.post(
      '/set-qr-config',
      { token, amounts: [60], singleUse: true },
      auth(merchant.testKey),
    );
    const response = await stack.post('/un-set-qr-config', { token }, auth(merchant.testKey));
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(await stack.readQr(token)).toMatchObject({ state: 'none', config: null });
  });

  it('answers 204 again for a code that has no configuration', async () => {
    const token = await stack.qrCode(merchant.id);
    expect((await stack.post('/un-set-qr-config', { token }, auth(merchant.testKey))).status).toBe(
      204,
    );
  });

  it('400 validation list: token must be a string; token should not be empty', async () => {
    const post = (body: unknown) => stack.post('/un-set-qr-config', body, auth(merchant.testKey));
    await expectValidation(await post({ token: 5 }), ['token must be a string']);
    await expectValidation(await post({ token: '' }), ['token should not be empty']);
    await expectValidation(await post({}), ['token should not be empty', 'token must be a string']);
    await expectValidation(await post('not json'), ['request body must be valid JSON']);
  });

  it('404 QR_CODE404_NOT_FOUND with details.token when no QR code exists', async () => {
    const response = await stack.post(
      '/un-set-qr-config',
      { token: 'QR-NOPE' },
      auth(merchant.testKey),
    );
    const body = await expectStandard(response, 404, 'QR_CODE404_NOT_FOUND');
    expect(body.details).toEqual({ token: 'QR-NOPE' });
  });

  it("404 for another merchant's token, whose configuration stays", async () => {
    const token = await stack.qrCode(other.id);
    await stack.post(
      '/set-qr-config',
      { token, amounts: [60], singleUse: true },
      auth(other.testKey),
    );
    await expectStandard(
      await stack.post('/un-set-qr-config', { token }, auth(merchant.testKey)),
      404,
      'QR_CODE404_NOT_FOUND',
    );
    expect((await stack.readQr(token)).state).toBe('configured');
  });
});

describe('401 AUTH401_UNAUTHORIZED_ACCESS', () => {
  const body = { token: 'QR1', amounts: [50], singleUse: false };

  it.each([
    ['a missing key', {}],
    ['an empty key', { 'x-api-key': '' }],
    ['a malformed key', { 'x-api-key': 'hello' }],
    ['an unknown key', { 'x-api-key': `pk_test_${'A'.repeat(43)}` }],
  ])('for %s, on both endpoints', async (_case, headers: Record<string, string>) => {
    await expectStandard(
      await stack.post('/set-qr-config', body, headers),
      401,
      'AUTH401_UNAUTHORIZED_ACCESS',
    );
    await expectStandard(
      await stack.post('/un-set-qr-config', body, headers),
      401,
      'AUTH401_UNAUTHORIZED_ACCESS',
    );
  });

  it('for a key sent twice', async () => {
    const headers = new Headers({ 'content-type': 'application/json' });
    headers.append('x-api-key', merchant.testKey);
    headers.append('x-api-key', merchant.testKey);
    const response = await fetch(`${stack.gateway.url}/set-qr-config`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    await expectStandard(response, 401, 'AUTH401_UNAUTHORIZED_ACCESS');
  });

  it('before validation: a bad body with a bad key is still a 401', async () => {
    await expectStandard(
      await stack.post('/set-qr-config', '{oops', {}),
      401,
      'AUTH401_UNAUTHORIZED_ACCESS',
    );
  });

  // The gateway caches key owners; Postgres tells it of every change (LISTEN/NOTIFY),
  // so access ends within moments of the change, even for a key it has just used.
  const statusOf = (path: string, body: unknown, key: string) => async () =>
    (await stack.post(path, body, auth(key))).status;

  it("for a revoked key, while the merchant's other key still works", async () => {
    const revoked = await stack.merchant('Revoked key merchant');
    const token = await stack.qrCode(revoked.id);
    const ok = { token, amounts: [50], singleUse: false };
    expect((await stack.post('/set-qr-config', ok, auth(revoked.testKey))).status).toBe(200);

    await accountsRepository(stack.gateway.runtime.sql).revokeKey(revoked.keyIds[0]!);
    await expect
      .poll(statusOf('/set-qr-config', ok, revoked.testKey), { timeout: 2_000 })
      .toBe(401);
    await expectStandard(
      await stack.post('/un-set-qr-config', { token }, auth(revoked.testKey)),
      401,
      'AUTH401_UNAUTHORIZED_ACCESS',
    );
    const liveToken = await stack.qrCode(revoked.id, 'live');
    const live = { ...ok, token: liveToken };
    expect((await stack.post('/set-qr-config', live, auth(revoked.liveKey))).status).toBe(200);
  });

  it('for a deactivated merchant, and access returns on reactivation', async () => {
    const inactive = await stack.merchant('Deactivated merchant');
    const token = await stack.qrCode(inactive.id);
    const ok = { token, amounts: [50], singleUse: false };
    const accounts = accountsRepository(stack.gateway.runtime.sql);
    expect((await stack.post('/set-qr-config', ok, auth(inactive.testKey))).status).toBe(200);

    await accounts.setMerchantActive(inactive.id, false);
    await expect
      .poll(statusOf('/set-qr-config', ok, inactive.testKey), { timeout: 2_000 })
      .toBe(401);
    const refused = await expectStandard(
      await stack.post('/set-qr-config', ok, auth(inactive.testKey)),
      401,
      'AUTH401_UNAUTHORIZED_ACCESS',
    );
    // Word for word what a made-up key gets: the answer must not confirm that a key is
    // real (only the status endpoint tells an inactive merchant apart, as the spec's 403).
    const unknown = await expectStandard(
      await stack.post('/set-qr-config', ok, auth(`pk_test_${'Z'.repeat(43)}`)),
      401,
      'AUTH401_UNAUTHORIZED_ACCESS',
    );
    expect(refused.message).toBe(unknown.message);
    expect(refused.details).toEqual(unknown.details);
    await accounts.setMerchantActive(inactive.id, true);
    await expect
      .poll(statusOf('/set-qr-config', ok, inactive.testKey), { timeout: 2_000 })
      .toBe(200);
  });

  it('never echoes the key', async () => {
    const key = `pk_test_${'B'.repeat(43)}`;
    const response = await stack.post('/set-qr-config', body, { 'x-api-key': key });
    expect(await response.text()).not.toContain(key);
  });
});

describe('other answers', () => {
  it('an unknown route is a 404 in the standard envelope', async () => {
    await expectStandard(await stack.post('/nowhere', {}), 404, 'ROUTE404_NOT_FOUND');
  });

  it('exposes request metrics on the ops port', async () => {
    const metrics = await fetch(`http://127.0.0.1:${stack.gateway.runtime.ops.port}/metrics`);
    const text = await metrics.text();
    expect(text).toMatch(
      /dzpay_http_request_duration_seconds_count\{.*route="\/set-qr-config".*status="200"/,
    );
  });
});
