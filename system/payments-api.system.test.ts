import { RegisteredPayment, StandardError, PaymentView } from '@dzpay/contracts';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pressPay } from './support/payer.ts';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
let merchant: Awaited<ReturnType<Stack['merchant']>>;
let other: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  stack = await startStack(
    'payments-api',
    { RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: true },
  );
  merchant = await stack.merchant('Librairie Tassili', { walletId: 'W-1', feeDzd: 50 });
  other = await stack.merchant('Café Bab El Oued');
});
afterAll(() => stack?.stop());

/** {"a":{"a":…}} nested `levels` deep. */
const deep = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

let seq = 0;
const reference = () => `ORDER-${Date.now()}-${seq++}`;
const body = (overrides: Record<string, unknown> = {}) => ({
  amount: 250_000,
  currency: 'DZD',
  reference: reference(),
  successUrl: 'https://shop.example/ok?cart=7',
  failureUrl: 'https://shop.example/ko',
  language: 'ar',
  metadata: { cart: 7 },
  ...overrides,
});
const register = (payload: unknown, key = merchant.testKey, headers: Record<string, string> = {}) =>
  stack.post('/api/v1/payments', payload, { 'x-api-key': key, ...headers });

async function expectError(response: Response, status: number, errorCode: string) {
  expect(response.status).toBe(status);
  const error = StandardError.parse(await response.json());
  expect(error).toMatchObject({ statusCode: status, errorCode });
  return error;
}

describe('POST /api/v1/payments', () => {
  it('answers 201 with the spec fields, the fee in DZD and the total in centimes', async () => {
    const before = Date.now();
    const response = await register(body());
    expect(response.status).toBe(201);
    const payload = (await response.json()) as {
      statusCode: number;
      message: string;
      data: unknown;
    };
    expect(payload.statusCode).toBe(201);
    expect(typeof payload.message).toBe('string');
    const data = RegisteredPayment.parse(payload.data);
    expect(Object.keys(payload.data as object).sort()).toEqual(
      [
        'amount',
        'checkoutUrl',
        'currency',
        'expiresAt',
        'fees',
        'id',
        'language',
        'reference',
        'status',
        'total',
      ].sort(),
    );
    expect(data).toMatchObject({
      amount: 250_000,
      fees: 50,
      total: 255_000,
      currency: 'DZD',
      language: 'ar',
      status: 'created',
    });
    const window = Date.parse(data.expiresAt) - before;
    expect(window).toBeGreaterThan(14.9 * 60_000);
    expect(window).toBeLessThan(15.1 * 60_000);
    expect(data.expiresAt.endsWith('Z')).toBe(true);

    const page = await fetch(data.checkoutUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Librairie Tassili');
  });

  it('defaults the language to fr', async () => {
    const { language, ...rest } = body();
    void language;
    const data = RegisteredPayment.parse(
      ((await (await register(rest)).json()) as { data: unknown }).data,
    );
    expect(data.language).toBe('fr');
  });

  it('reads null for an optional field as absent, as many client libraries send it', async () => {
    const response = await register(
      body({ successUrl: null, failureUrl: null, language: null, metadata: null }),
    );
    expect(response.status).toBe(201);
    const data = RegisteredPayment.parse(((await response.json()) as { data: unknown }).data);
    expect(data.language).toBe('fr');
  });

  it('GET /api/v1/payments/{id} reads it back with its URLs and metadata, never the checkout link', async () => {
    const sent = body();
    const created = RegisteredPayment.parse(
      ((await (await register(sent)).json()) as { data: unknown }).data,
    );
    const response = await stack.get(`/api/v1/payments/${created.id}`, {
      'x-api-key': merchant.testKey,
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain('checkout');
    const view = PaymentView.parse((JSON.parse(text) as { data: unknown }).data);
    expect(view).toMatchObject({
      id: created.id,
      reference: sent.reference,
      status: 'created',
      successUrl: sent.successUrl,
      failureUrl: sent.failureUrl,
      metadata: { cart: 7 },
      refundedAmount: 0,
    });
  });

  describe('400 VALIDATION400_BAD_REQUEST with details.failures', () => {
    it.each([
      ['a missing amount', { amount: undefined }, 'amount'],
      ['a fractional amount', { amount: 5000.5 }, 'amount'],
      ['an amount as a string', { amount: '5000' }, 'amount'],
      ['a missing reference', { reference: undefined }, 'reference'],
      ['an empty reference', { reference: '' }, 'reference'],
      ['a 256-character reference', { reference: 'R'.repeat(256) }, 'reference'],
      ['a relative successUrl', { successUrl: '/thanks' }, 'successUrl'],
      ['an ftp failureUrl', { failureUrl: 'ftp://shop.example/ko' }, 'failureUrl'],
      [
        'a successUrl over 1000 characters',
        { successUrl: `https://shop.example/${'a'.repeat(1000)}` },
        'successUrl',
      ],
      ['a language outside ar/fr/en', { language: 'de' }, 'language'],
      ['metadata that is not an object', { metadata: [1, 2] }, 'metadata'],
      ['an unknown field', { color: 'red' }, 'color'],
      ['a reference with a NUL character', { reference: 'A\u0000B' }, 'reference'],
      ['a reference with a lone surrogate', { reference: 'A\ud800B' }, 'reference'],
      ['a reference with a right-to-left override', { reference: 'A\u202efdp.exe' }, 'reference'],
      ['a URL without //', { successUrl: 'http:shop.example/ok' }, 'successUrl'],
      ['a URL with a NUL character', { failureUrl: 'https://shop.example/\u0000' }, 'failureUrl'],
      ['metadata with a NUL character', { metadata: { note: 'a\u0000b' } }, 'metadata'],
      ['metadata nested 3000 levels deep', { metadata: deep(3000) }, 'metadata'],
    ])('for %s', async (_case, overrides, field) => {
      const error = await expectError(
        await register(body(overrides)),
        400,
        'VALIDATION400_BAD_REQUEST',
      );
      const failures = (error.details as { failures: { field: string; message: string }[] })
        .failures;
      expect(failures.map((failure) => failure.field)).toContain(field);
    });

    it('lists every failed field at once', async () => {
      const error = await expectError(
        await register({ currency: 'DZD', successUrl: 'nope' }),
        400,
        'VALIDATION400_BAD_REQUEST',
      );
      const fields = (error.details as { failures: { field: string }[] }).failures.map(
        (f) => f.field,
      );
      expect(fields).toEqual(expect.arrayContaining(['amount', 'reference', 'successUrl']));
    });

    it('for malformed JSON', async () => {
      await expectError(await register('{"amount": 1'), 400, 'VALIDATION400_BAD_REQUEST');
    });
  });

  it.each([
    [4_999, 400],
    [5_000, 201],
    [100_000_000, 201],
    [100_000_001, 400],
  ])('amount %i is answered %i (range 5000..100000000)', async (amount, status) => {
    const response = await register(body({ amount }));
    if (status === 400) await expectError(response, 400, 'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE');
    else expect(response.status).toBe(201);
  });

  it('400 PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY', async () => {
    await expectError(
      await register(body({ currency: 'EUR' })),
      400,
      'PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY',
    );
  });

  it('metadata of 4096 bytes passes, 4097 is 400 VALIDATION422_UNPROCESSABLE_ENTITY', async () => {
    // {"k":"…"} is 8 bytes around the value.
    const sized = (bytes: number) => ({ k: 'x'.repeat(bytes - 8) });
    expect((await register(body({ metadata: sized(4096) }))).status).toBe(201);
    await expectError(
      await register(body({ metadata: sized(4097) })),
      400,
      'VALIDATION422_UNPROCESSABLE_ENTITY',
    );
  });

  it('409 PAYMENT_INSTANCE409_DUPLICATE_REFERENCE for a reference already used', async () => {
    const sent = body();
    expect((await register(sent)).status).toBe(201);
    await expectError(
      await register({ ...sent, amount: 9_000 }),
      409,
      'PAYMENT_INSTANCE409_DUPLICATE_REFERENCE',
    );
  });

  it('422 SETTLEMENT422_MERCHANT_WALLET_MISSING for a merchant without a wallet', async () => {
    const walletless = await stack.merchant('Sans portefeuille', {});
    await expectError(
      await register(body(), walletless.testKey),
      422,
      'SETTLEMENT422_MERCHANT_WALLET_MISSING',
    );
  });

  it('502 CARDNET502_REGISTRATION_FAILED while the card network is out, and the reference is used up', async () => {
    const checkoutUrlOf = async (response: Response) => {
      expect(response.status).toBe(201);
      return RegisteredPayment.parse(((await response.json()) as { data: unknown }).data)
        .checkoutUrl;
    };
    const healthy = await checkoutUrlOf(await register(body()));
    // Registration waits for no card network: the order is registered when the payer
    // goes on to pay. The sandbox answers register.do for this total (amount + 50 DZD fee
    // = 6 666 600 centimes) with 503: that payer's click finds the network out.
    const unlucky = await checkoutUrlOf(await register(body({ amount: 6_666_600 - 5_000 })));
    expect((await pressPay(unlucky)).status).toBe(503);

    const sent = body();
    await expectError(await register(sent), 502, 'CARDNET502_REGISTRATION_FAILED');
    await expectError(
      await register({ ...sent, amount: 9_000 }),
      409,
      'PAYMENT_INSTANCE409_DUPLICATE_REFERENCE',
    );
    // A click whose register.do succeeds says the network is back.
    expect((await pressPay(healthy)).status).toBe(303);
    expect((await register(body())).status).toBe(201);
  });

  it('401 AUTH401_UNAUTHORIZED_ACCESS for a missing or unknown key', async () => {
    await expectError(
      await stack.post('/api/v1/payments', body()),
      401,
      'AUTH401_UNAUTHORIZED_ACCESS',
    );
    await expectError(
      await register(body(), `pk_test_${'Z'.repeat(43)}`),
      401,
      'AUTH401_UNAUTHORIZED_ACCESS',
    );
  });

  it('creates exactly one payment from 200 parallel registrations of one reference', async () => {
    const sent = body();
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const response = await register(sent);
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(199);
  });
});

describe('return URLs of a live payment', () => {
  // A live payer is a real person: sent back only over TLS, to a host on the internet.
  it.each([
    ['an http successUrl', { successUrl: 'http://shop.example/ok' }, 'successUrl'],
    ['a localhost successUrl', { successUrl: 'https://localhost:3000/ok' }, 'successUrl'],
    ['a name under localhost', { failureUrl: 'https://shop.localhost/ko' }, 'failureUrl'],
    ['a loopback IPv4 failureUrl', { failureUrl: 'https://127.0.0.1:8443/ko' }, 'failureUrl'],
    ['loopback written as 0x7f.1', { successUrl: 'https://0x7f.1/ok' }, 'successUrl'],
    ['the IPv6 loopback', { successUrl: 'https://[::1]/ok' }, 'successUrl'],
    ['a private address', { successUrl: 'https://10.0.0.5/ok' }, 'successUrl'],
    ['cloud metadata', { failureUrl: 'https://169.254.169.254/latest' }, 'failureUrl'],
    ['a single-label name', { successUrl: 'https://intranet/ok' }, 'successUrl'],
    ['a user and password', { successUrl: 'https://shop:secret@shop.example/ok' }, 'successUrl'],
  ])('are refused with a live key: %s', async (_case, overrides, field) => {
    const sent = body(overrides);
    const error = await expectError(
      await register(sent, merchant.liveKey),
      400,
      'VALIDATION400_BAD_REQUEST',
    );
    const failures = (error.details as { failures: { field: string; message: string }[] }).failures;
    expect(failures).toEqual([{ field, message: expect.stringContaining(field) as string }]);
    // Refused before payments: the reference is not used up.
    const db = postgres(stack.infra.databaseUrl, { max: 1 });
    const rows = await db`select 1 from payments.payments where reference = ${sent.reference}`;
    await db.end();
    expect(rows).toHaveLength(0);
  });

  it('lists both URLs when both are refused', async () => {
    const error = await expectError(
      await register(
        body({ successUrl: 'http://localhost/ok', failureUrl: 'https://192.168.1.10/ko' }),
        merchant.liveKey,
      ),
      400,
      'VALIDATION400_BAD_REQUEST',
    );
    const fields = (error.details as { failures: { field: string }[] }).failures.map(
      (f) => f.field,
    );
    expect(fields.sort()).toEqual(['failureUrl', 'successUrl']);
  });

  it('lets https URLs on public hosts through with a live key', async () => {
    // No live card network is configured here: passing validation means reaching it (502).
    await expectError(
      await register(
        body({ successUrl: 'https://shop.example.dz/ok?cart=7', failureUrl: 'https://8.8.8.8/ko' }),
        merchant.liveKey,
      ),
      502,
      'CARDNET502_REGISTRATION_FAILED',
    );
  });

  it('still accepts http and localhost with a test key: developers test on their machines', async () => {
    const response = await register(
      body({ successUrl: 'http://localhost:3000/ok', failureUrl: 'http://127.0.0.1:3000/ko' }),
      merchant.testKey,
    );
    expect(response.status).toBe(201);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body', async () => {
    const sent = body();
    const key = `idem-${reference()}`;
    const first = await register(sent, merchant.testKey, { 'idempotency-key': key });
    const again = await register(sent, merchant.testKey, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const sent = body();
    const key = `idem-${reference()}`;
    const reordered = Object.fromEntries(Object.entries(sent).reverse());
    expect((await register(sent, merchant.testKey, { 'idempotency-key': key })).status).toBe(201);
    const again = await register(reordered, merchant.testKey, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('replays an error answer too', async () => {
    const key = `idem-${reference()}`;
    const sent = body({ currency: 'EUR' });
    await expectError(
      await register(sent, merchant.testKey, { 'idempotency-key': key }),
      400,
      'PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY',
    );
    await expectError(
      await register(sent, merchant.testKey, { 'idempotency-key': key }),
      400,
      'PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY',
    );
  });

  it('refuses the same key with another body: 409 IDEMPOTENCY409_KEY_REUSED', async () => {
    const key = `idem-${reference()}`;
    expect((await register(body(), merchant.testKey, { 'idempotency-key': key })).status).toBe(201);
    await expectError(
      await register(body(), merchant.testKey, { 'idempotency-key': key }),
      409,
      'IDEMPOTENCY409_KEY_REUSED',
    );
  });
});

describe('scoping', () => {
  it("answers 404 for another merchant's payment and for the other mode's", async () => {
    const created = RegisteredPayment.parse(
      ((await (await register(body())).json()) as { data: unknown }).data,
    );
    await expectError(
      await stack.get(`/api/v1/payments/${created.id}`, { 'x-api-key': other.testKey }),
      404,
      'PAYMENT_INSTANCE404_NOT_FOUND',
    );
    await expectError(
      await stack.get(`/api/v1/payments/${created.id}`, { 'x-api-key': merchant.liveKey }),
      404,
      'PAYMENT_INSTANCE404_NOT_FOUND',
    );
    await expectError(
      await stack.get('/api/v1/payments/not-a-uuid', { 'x-api-key': merchant.testKey }),
      404,
      'PAYMENT_INSTANCE404_NOT_FOUND',
    );
  });

  it('a test key cannot read a live payment, nor a live key a test one', async () => {
    const shop = await stack.merchant('Live shop');
    // No live card network is configured here: a live registration answers 502 and
    // leaves a failed live payment behind, which the test key must not see.
    const sent = body();
    await expectError(await register(sent, shop.liveKey), 502, 'CARDNET502_REGISTRATION_FAILED');
    const db = postgres(stack.infra.databaseUrl, { max: 1 });
    const [live] = await db<{ id: string }[]>`
      select id from payments.payments where reference = ${sent.reference} and mode = 'live'`;
    await db.end();
    const asLive = await stack.get(`/api/v1/payments/${live!.id}`, { 'x-api-key': shop.liveKey });
    expect(PaymentView.parse(((await asLive.json()) as { data: unknown }).data).status).toBe(
      'failed',
    );
    await expectError(
      await stack.get(`/api/v1/payments/${live!.id}`, { 'x-api-key': shop.testKey }),
      404,
      'PAYMENT_INSTANCE404_NOT_FOUND',
    );

    const test = RegisteredPayment.parse(
      ((await (await register(body(), shop.testKey)).json()) as { data: unknown }).data,
    );
    await expectError(
      await stack.get(`/api/v1/payments/${test.id}`, { 'x-api-key': shop.liveKey }),
      404,
      'PAYMENT_INSTANCE404_NOT_FOUND',
    );
  });
});
