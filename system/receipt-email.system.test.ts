import { randomUUID } from 'node:crypto';
import { DzpayError } from '@dzpay/client';
import { connectPostgres, type Sql } from '@dzpay/platform';
import { startMailCatcher, type MailCatcher } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { CARDS, payByHttp } from './support/payer.ts';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
let mail: MailCatcher;
let receiptsDb: Sql;
type Merchant = Awaited<ReturnType<Stack['merchant']>>;
let shop: Merchant;

beforeAll(async () => {
  mail = await startMailCatcher();
  stack = await startStack(
    'receipt-email',
    { RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: true, withReceipts: { ...mail.env, SMTP_FROM: 'receipts@dzpay.test' } },
  );
  shop = await stack.merchant('Librairie El Fath', { walletId: 'W-R', feeDzd: 50 });
  receiptsDb = connectPostgres(stack.infra.databaseUrl, 'receipts', 2);
});
afterAll(async () => {
  await receiptsDb?.end();
  await stack?.stop();
  await mail?.close();
});

let seq = 0;
function register(merchant: Merchant, language: 'ar' | 'fr' | 'en' = 'fr') {
  return stack.client(merchant.testKey).registerPayment({
    amount: 150_050,
    currency: 'DZD',
    reference: `RC-${Date.now()}-${seq++}`,
    language,
  });
}

/** What the typed client threw for a refused request. */
async function refusal(call: Promise<unknown>): Promise<DzpayError> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DzpayError);
  return error as DzpayError;
}

async function paid(merchant: Merchant, language: 'ar' | 'fr' | 'en' = 'fr') {
  const payment = await register(merchant, language);
  const paying = await payByHttp(payment.checkoutUrl, CARDS.approved);
  return { ...payment, orderId: paying.orderId };
}

const emailReceipt = (merchant: Merchant, id: string, body: unknown, key = merchant.testKey) =>
  stack.post(`/api/v1/payments/${id}/receipt/email`, body, { 'x-api-key': key });

async function errorOf(response: Response) {
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const to = (address: string) =>
  mail.messages.filter((m) => m.to && 'text' in m.to && m.to.text === address);

describe('POST /api/v1/payments/{id}/receipt/email', () => {
  it('emails the receipt in the payment language, HTML and text, with every fact of the payment', async () => {
    const payment = await paid(shop, 'fr');
    const address = `amina.${randomUUID().slice(0, 8)}@example.dz`;
    const response = await emailReceipt(shop, payment.id, { email: address });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      statusCode: 200,
      message: 'Receipt email sent',
      data: { sent: true, language: 'fr' },
    });

    const [message] = to(address);
    expect(message).toBeDefined();
    expect(message!.subject).toBe('Votre reçu de paiement – Librairie El Fath');
    expect(message!.from?.text).toBe('receipts@dzpay.test');
    const view = await (
      await stack.get(`/api/v1/payments/${payment.id}`, { 'x-api-key': shop.testKey })
    ).json();
    const { approvalCode, maskedPan, orderId } = (view as { data: Record<string, string> }).data;
    expect(approvalCode).toBeTruthy();
    expect(maskedPan).toMatch(/\*{2,}/);
    for (const part of [message!.text!, message!.html as string]) {
      // 1 500,50 DA with the French narrow no-break space as the group separator.
      expect(part.replace(/\s/g, ' ')).toContain('1 500,50 DA');
      expect(part.replace(/\s/g, ' ')).toContain('50,00 DA');
      expect(part.replace(/\s/g, ' ')).toContain('1 550,50 DA');
      for (const fact of [payment.reference, payment.id, orderId!, approvalCode!, maskedPan!]) {
        expect(part).toContain(fact);
      }
      expect(part).toContain('Librairie El Fath');
    }
    expect(message!.html).toContain('<html lang="fr" dir="ltr">');
    // Nothing fetched from elsewhere: no image, stylesheet, font or script.
    expect(message!.html).not.toMatch(/<img|<link|<script|url\(|src=/i);

    const [logged] = await receiptsDb<{ recipient: string; outcome: string; key_id: string }[]>`
      select recipient, outcome, key_id from sends where payment_id = ${payment.id}`;
    expect(logged).toEqual({
      recipient: 'a***@example.dz',
      outcome: 'sent',
      key_id: shop.keyIds[0],
    });
  });

  it('writes Arabic right to left, English when asked, in the requested language', async () => {
    const payment = await paid(shop, 'en');
    const address = `ar.${randomUUID().slice(0, 8)}@example.dz`;
    const arabic = await emailReceipt(shop, payment.id, { email: address, language: 'ar' });
    expect(arabic.status).toBe(200);
    expect(((await arabic.json()) as { data: unknown }).data).toEqual({
      sent: true,
      language: 'ar',
    });
    const [message] = to(address);
    expect(message!.subject).toBe('إيصال الدفع – Librairie El Fath');
    expect(message!.html).toContain('<html lang="ar" dir="rtl">');
    expect(message!.text).toContain('د.ج.');

    const english = `en.${randomUUID().slice(0, 8)}@example.dz`;
    const response = await emailReceipt(shop, payment.id, { email: english });
    expect(((await response.json()) as { data: unknown }).data).toEqual({
      sent: true,
      language: 'en',
    });
    expect(to(english)[0]!.text!.replace(/\s/g, ' ')).toContain('DZD 1,550.50');
  });

  it('shows in a browser right to left in Arabic, fetching nothing from anywhere', async () => {
    const payment = await paid(shop, 'ar');
    const address = `browser.${randomUUID().slice(0, 8)}@example.dz`;
    expect((await emailReceipt(shop, payment.id, { email: address })).status).toBe(200);
    const html = to(address)[0]!.html as string;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.setContent(html, { waitUntil: 'load' });
      const layout = await page.evaluate<{
        direction: string;
        title: string;
        cardLeftToRight: string;
      }>(`({
        direction: getComputedStyle(document.body).direction,
        title: document.querySelector('h1').textContent,
        cardLeftToRight: [...document.querySelectorAll('bdi')].map((b) => b.textContent).join(' '),
      })`);
      expect(layout.direction).toBe('rtl');
      expect(layout.title).toBe('إيصال الدفع');
      expect(layout.cardLeftToRight).toContain(payment.reference);
      // setContent itself is no request: anything here was fetched by the email.
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('refuses a bad address with 400 VALIDATION400_BAD_REQUEST', async () => {
    const payment = await paid(shop);
    const long = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}.dz`;
    expect(long).toHaveLength(255);
    for (const body of [
      { email: long },
      { email: 'not-an-address' },
      { email: 'a@b' },
      { email: 42 },
      {},
      { email: 'ok@example.dz', language: 'de' },
      { email: 'ok@example.dz', cc: 'x@example.dz' },
    ]) {
      const { status, body: answer } = await errorOf(await emailReceipt(shop, payment.id, body));
      expect(status, JSON.stringify(body)).toBe(400);
      expect(answer).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION400_BAD_REQUEST' });
      const failures = (answer.details as { failures?: unknown } | undefined)?.failures;
      expect(Array.isArray(failures) && failures.length > 0, JSON.stringify(body)).toBe(true);
    }
    const { body } = await errorOf(await emailReceipt(shop, payment.id, { email: long }));
    expect(
      (body.details as { failures: { field: string; message: string }[] }).failures,
    ).toContainEqual({
      field: 'email',
      message: 'email must be at most 254 characters',
    });
  });

  it('answers 404 PAYMENT_INSTANCE404_NOT_FOUND for an unknown id, another merchant, the other mode', async () => {
    const payment = await paid(shop);
    const other = await stack.merchant('Autre commerce', { walletId: 'W-O' });
    const cases: [Merchant, string, string][] = [
      [shop, randomUUID(), shop.testKey],
      [shop, 'not-a-uuid', shop.testKey],
      [other, payment.id, other.testKey],
      [shop, payment.id, shop.liveKey],
    ];
    for (const [, id, key] of cases) {
      const error = await refusal(
        stack.client(key).emailReceipt(id, { email: 'payer@example.dz' }),
      );
      expect(error.status).toBe(404);
      expect(error.errorCode).toBe('PAYMENT_INSTANCE404_NOT_FOUND');
      expect(error.body).toMatchObject({ statusCode: 404 });
    }
  });

  it('answers 409 RECEIPT409_NOT_AVAILABLE for a pending and a failed payment', async () => {
    const pending = await register(shop);
    const failed = await register(shop);
    await payByHttp(failed.checkoutUrl, CARDS.insufficientFunds);
    for (const payment of [pending, failed]) {
      const error = await refusal(
        stack.client(shop.testKey).emailReceipt(payment.id, { email: 'payer@example.dz' }),
      );
      expect(error.status).toBe(409);
      expect(error.errorCode).toBe('RECEIPT409_NOT_AVAILABLE');
    }
  });

  it('sends 20 in the hour; the 21st is 429 RATE429_LIMIT_EXCEEDED and does not leave', async () => {
    const merchant = await stack.merchant('Vingt reçus', { walletId: 'W-20' });
    const payment = await paid(merchant);
    const address = `twenty.${randomUUID().slice(0, 8)}@example.dz`;
    const client = stack.client(merchant.testKey);
    for (let i = 0; i < 20; i += 1) {
      expect(await client.emailReceipt(payment.id, { email: address })).toEqual({
        sent: true,
        language: 'fr',
      });
    }
    const response = await emailReceipt(merchant, payment.id, { email: address });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await response.json()).toMatchObject({
      statusCode: 429,
      errorCode: 'RATE429_LIMIT_EXCEEDED',
      details: { limit: 20 },
    });
    expect(to(address)).toHaveLength(20);
    const outcomes = await receiptsDb<{ outcome: string; count: number }[]>`
      select outcome, count(*)::int as count from sends where payment_id = ${payment.id}
      group by outcome order by outcome`;
    expect(outcomes).toEqual([
      { outcome: 'limited', count: 1 },
      { outcome: 'sent', count: 20 },
    ]);
  });

  it('counts a per-merchant limit across concurrent sends: exactly the limit leaves', async () => {
    const merchant = await stack.merchant('Cinq reçus', {
      walletId: 'W-5',
      receiptEmailsPerHour: 5,
    });
    const payment = await paid(merchant);
    const address = `five.${randomUUID().slice(0, 8)}@example.dz`;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => emailReceipt(merchant, payment.id, { email: address })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
    expect(to(address)).toHaveLength(5);
  });

  it('answers 502 RECEIPT502_EMAIL_FAILED when the mail server refuses, and counts nothing', async () => {
    const merchant = await stack.merchant('Deux reçus', {
      walletId: 'W-2R',
      receiptEmailsPerHour: 2,
    });
    const payment = await paid(merchant);
    const address = `refused.${randomUUID().slice(0, 8)}@example.dz`;
    mail.refuseWith(550);
    try {
      for (let i = 0; i < 3; i += 1) {
        const { status, body } = await errorOf(
          await emailReceipt(merchant, payment.id, { email: address }),
        );
        expect(status).toBe(502);
        expect(body).toMatchObject({
          statusCode: 502,
          errorCode: 'RECEIPT502_EMAIL_FAILED',
          details: { smtpCode: 550 },
        });
      }
    } finally {
      mail.refuseWith(null);
    }
    expect(to(address)).toHaveLength(0);
    // The three refusals took nothing from the two allowed this hour.
    expect((await emailReceipt(merchant, payment.id, { email: address })).status).toBe(200);
    expect((await emailReceipt(merchant, payment.id, { email: address })).status).toBe(200);
    expect((await emailReceipt(merchant, payment.id, { email: address })).status).toBe(429);
    const refused = await receiptsDb<{ smtp_response: string }[]>`
      select smtp_response from sends where payment_id = ${payment.id} and outcome = 'refused'`;
    expect(refused).toHaveLength(3);
    // The server echoed the address; the log keeps only its auditable form.
    for (const { smtp_response } of refused) {
      expect(smtp_response).toContain('550');
      expect(smtp_response).not.toContain(address);
      expect(smtp_response).toContain('r***@example.dz');
    }
  });

  it('answers 401 without a valid key', async () => {
    const { status, body } = await errorOf(
      await emailReceipt(shop, randomUUID(), { email: 'payer@example.dz' }, 'pk_test_nope'),
    );
    expect(status).toBe(401);
    expect(body).toMatchObject({ errorCode: 'AUTH401_UNAUTHORIZED_ACCESS' });
  });
});
