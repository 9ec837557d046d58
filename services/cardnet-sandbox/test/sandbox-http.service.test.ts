import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/service.ts';

let sandbox: Sandbox;
let sequence = 0;

beforeAll(async () => {
  sandbox = await startSandbox(
    { SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    { handleSignals: false },
  );
});

afterAll(() => sandbox.close());

const credentials = { userName: 'sandbox', password: 'sandbox' };

async function rest(operation: string, params: Record<string, string>) {
  const response = await fetch(`${sandbox.url}/payment/rest/${operation}.do`, {
    method: 'POST',
    body: new URLSearchParams({ ...credentials, ...params }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function register(params: Record<string, string> = {}) {
  const { body } = await rest('register', {
    orderNumber: `page-${++sequence}`,
    amount: '150000',
    currency: '012',
    returnUrl: 'https://shop.example/back',
    ...params,
  });
  return body as { orderId: string; formUrl: string };
}

describe('the card form', () => {
  it('renders in Arabic right to left, with the amount and order number', async () => {
    const { formUrl } = await register({ language: 'AR', orderNumber: 'AR-ORDER-1' });
    const response = await fetch(formUrl);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain('AR-ORDER-1');
    expect(html).toContain('د.ج');
    expect(html).toContain('الدفع بالبطاقة');
  });

  it('renders in French with the amount in dinars', async () => {
    const { formUrl } = await register({ language: 'FR', amount: '250050' });
    const html = await (await fetch(formUrl)).text();
    expect(html).toContain('<html lang="fr" dir="ltr">');
    expect(html).toMatch(/2\s500,50 DZD/);
  });

  it('is served with a strict content security policy and never cached', async () => {
    const { formUrl } = await register();
    const response = await fetch(formUrl);
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'",
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('escapes the merchant description', async () => {
    const description = '<script>alert("x")</script> & \'quotes\'';
    const { formUrl } = await register({ language: 'EN', description });
    const html = await (await fetch(formUrl)).text();
    expect(html).not.toContain('<script>');
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;',
    );
  });

  it('comes back with an error, and decides nothing, when the PAN fails Luhn', async () => {
    const { orderId } = await register({ language: 'EN' });
    const response = await fetch(`${sandbox.url}/payment/merchants/pay`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({
        mdOrder: orderId,
        pan: '6280580000000001',
        expiry: '12/30',
        cvv: '987',
        cardholderName: 'Name <b>',
      }),
    });
    const html = await response.text();
    expect(response.status).toBe(422);
    expect(html).toContain('The card number is not valid.');
    expect(html).toContain('value="Name &lt;b&gt;"');
    // The order id (a random UUID) may hold the digits by chance: look past it.
    const shown = html.replaceAll(orderId, '');
    expect(shown).not.toContain('6280580000000001');
    expect(shown).not.toContain('987');
    const status = await rest('getOrderStatusExtended', { orderId });
    expect(status.body.orderStatus).toBe(0);
  });

  it('answers 404 for an unknown order', async () => {
    const response = await fetch(`${sandbox.url}/payment/merchants/form?mdOrder=nope`);
    expect(response.status).toBe(404);
  });
});

describe('the REST API', () => {
  it('takes its parameters in a GET query too, as SATIM does', async () => {
    const query = new URLSearchParams({
      ...credentials,
      orderNumber: `get-${++sequence}`,
      amount: '5000',
      currency: '012',
      returnUrl: 'https://shop.example/back',
    });
    const response = await fetch(`${sandbox.url}/payment/rest/register.do?${query.toString()}`);
    expect(await response.json()).toMatchObject({ errorCode: '0' });
  });

  it('answers HTTP 503 with an HTML body for the unavailable amount', async () => {
    const response = await fetch(`${sandbox.url}/payment/rest/register.do`, {
      method: 'POST',
      body: new URLSearchParams({ ...credentials, amount: '6666600' }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('refuses a missing parameter with 4 and an invalid one with 3', async () => {
    const base = { currency: '012', returnUrl: 'https://shop.example/back' };
    const noNumber = await rest('register', { ...base, amount: '100' });
    expect(noNumber.body).toMatchObject({ errorCode: '4' });
    const euros = await rest('register', {
      ...base,
      orderNumber: 'x',
      amount: '100',
      currency: '978',
    });
    expect(euros.body).toMatchObject({ errorCode: '3' });
  });

  it('finds an order by its order number', async () => {
    await register({ orderNumber: 'BY-NUMBER-1' });
    const { body } = await rest('getOrderStatusExtended', { orderNumber: 'BY-NUMBER-1' });
    expect(body).toMatchObject({ errorCode: '0', orderNumber: 'BY-NUMBER-1', orderStatus: 0 });
  });

  it('answers errorCode 6 for an unknown order', async () => {
    const { body } = await rest('getOrderStatusExtended', { orderId: 'nope' });
    expect(body).toEqual({ errorCode: '6', errorMessage: 'Order not found' });
  });

  it('puts SANDBOX_PUBLIC_URL, path prefix included, in formUrl', async () => {
    const proxied = await startSandbox(
      {
        SANDBOX_PORT: '0',
        SANDBOX_HOST: '127.0.0.1',
        SANDBOX_PUBLIC_URL: 'https://pay.example/satim/',
        LOG_LEVEL: 'silent',
      },
      { handleSignals: false },
    );
    try {
      const response = await fetch(`${proxied.url}/payment/rest/register.do`, {
        method: 'POST',
        body: new URLSearchParams({
          ...credentials,
          orderNumber: 'proxied-1',
          amount: '100',
          currency: '012',
          returnUrl: 'https://shop.example/back',
        }),
      });
      const { orderId, formUrl } = (await response.json()) as Record<string, string>;
      expect(formUrl).toBe(`https://pay.example/satim/payment/merchants/form?mdOrder=${orderId}`);
    } finally {
      await proxied.close();
    }
  });

  it('answers /healthz', async () => {
    expect((await fetch(`${sandbox.url}/healthz`)).status).toBe(200);
  });
});
