import {
  PaymentsRefundReply,
  PaymentView,
  RegisteredPayment,
  StandardError,
} from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARDS, payByHttp } from './support/payer.ts';
import { eventTypesOf } from './support/payment-events.ts';
import { sandboxOrderStatus } from './support/sandbox-orders.ts';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
let merchant: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  stack = await startStack(
    'checkout-flow',
    { RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: true },
  );
  merchant = await stack.merchant('Pâtisserie Ketchaoua', { walletId: 'W-2', feeDzd: 0 });
});
afterAll(() => stack?.stop());

let seq = 0;
async function registered(overrides: Record<string, unknown> = {}) {
  const response = await stack.post(
    '/api/v1/payments',
    {
      amount: 150_000,
      currency: 'DZD',
      reference: `CK-${Date.now()}-${seq++}`,
      successUrl: 'https://shop.example/merci?cart=42',
      failureUrl: 'https://shop.example/echec',
      ...overrides,
    },
    { 'x-api-key': merchant.testKey },
  );
  expect(response.status).toBe(201);
  return RegisteredPayment.parse(((await response.json()) as { data: unknown }).data);
}

async function read(id: string): Promise<PaymentView> {
  const response = await stack.get(`/api/v1/payments/${id}`, { 'x-api-key': merchant.testKey });
  return PaymentView.parse(((await response.json()) as { data: unknown }).data);
}

const events = (paymentId: string) =>
  eventTypesOf(stack.gateway.runtime.nats, stack.infra.natsPrefix, paymentId);

describe('paying a hosted checkout', () => {
  it('approved card: lands on successUrl with reference appended, records the order, publishes each event once', async () => {
    const payment = await registered();
    const { finalUrl } = await payByHttp(payment.checkoutUrl, CARDS.approved);
    const landed = new URL(finalUrl!);
    expect(landed.origin + landed.pathname).toBe('https://shop.example/merci');
    expect(landed.searchParams.get('cart')).toBe('42');
    expect(landed.searchParams.get('reference')).toBe(payment.reference);

    const view = await read(payment.id);
    expect(view.status).toBe('success');
    expect(view.maskedPan).toMatch(/^628058\*+0009$/);
    expect(view.orderId).toBeTruthy();
    expect(view.approvalCode).toBeTruthy();
    expect(view.paidAt).toBeTruthy();
    await expect
      .poll(() => events(payment.id), { timeout: 5_000 })
      .toEqual(['payment.created', 'payment.processing', 'payment.succeeded']);
  });

  it('declined card: lands on failureUrl with reference appended, status failed with the reason', async () => {
    const payment = await registered();
    const { finalUrl } = await payByHttp(payment.checkoutUrl, CARDS.insufficientFunds);
    const landed = new URL(finalUrl!);
    expect(landed.pathname).toBe('/echec');
    expect(landed.searchParams.get('reference')).toBe(payment.reference);
    const view = await read(payment.id);
    expect(view.status).toBe('failed');
    expect(view.failureReason).toMatch(/insufficient|provision/i);
    await expect
      .poll(() => events(payment.id), { timeout: 5_000 })
      .toEqual(['payment.created', 'payment.processing', 'payment.failed']);
  });

  it('without merchant URLs, shows our own result page in the payment language', async () => {
    const payment = await registered({
      successUrl: undefined,
      failureUrl: undefined,
      language: 'en',
    });
    const { landing } = await payByHttp(payment.checkoutUrl, CARDS.approved);
    expect(landing.status).toBe(200);
    expect(await landing.text()).toContain('Payment successful');
  });

  it('a payer submitting the card form twice is charged once and the success is recorded once', async () => {
    const payment = await registered();
    const { orderId } = await payByHttp(payment.checkoutUrl, CARDS.approved, { submitTwice: true });
    expect((await read(payment.id)).status).toBe('success');
    // One order at the card network, deposited once.
    expect(await sandboxOrderStatus(stack.sandbox!.url, orderId)).toBe(2);
    // Coming back again changes nothing either.
    const again = await fetch(`${stack.gateway.url}/checkout/return/${payment.id}`, {
      redirect: 'manual',
    });
    expect(again.status).toBe(303);
    await expect
      .poll(() => events(payment.id), { timeout: 5_000 })
      .toEqual(['payment.created', 'payment.processing', 'payment.succeeded']);
  });

  it('reopening a finished link shows its outcome and never starts a second charge', async () => {
    const payment = await registered({
      successUrl: undefined,
      failureUrl: undefined,
      language: 'fr',
    });
    await payByHttp(payment.checkoutUrl, CARDS.approved);
    const page = await fetch(payment.checkoutUrl);
    expect(await page.text()).toContain('Paiement réussi');
    const pay = await fetch(`${payment.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(new URL(payment.checkoutUrl).pathname);
  });

  it('an unknown checkout link is a 404 page, not JSON', async () => {
    const response = await fetch(`${stack.gateway.url}/checkout/not-a-token`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('the checkout page is served with a strict CSP, in the payment language, RTL in Arabic', async () => {
    const payment = await registered({ language: 'ar' });
    const page = await fetch(payment.checkoutUrl);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'nonce-/);
    // No site may frame the payer's page (clickjacking): the CSP says so to browsers that
    // read frame-ancestors, X-Frame-Options to those that do not.
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).toContain('dir="rtl"');
    expect(html).toContain('lang="ar"');
    expect(html).not.toMatch(/<link|src="http/);
    const french = await (await fetch(`${payment.checkoutUrl}?lang=fr`)).text();
    expect(french).toContain('dir="ltr"');
    expect(french).toContain('Total à payer');
  });
});

describe('POST /api/v1/payments/{id}/refund', () => {
  const refund = (id: string, payload: unknown = {}) =>
    stack.post(`/api/v1/payments/${id}/refund`, payload, { 'x-api-key': merchant.testKey });

  it('refunds part, then the rest, at the card network; the payment ends refunded', async () => {
    const payment = await registered();
    await payByHttp(payment.checkoutUrl, CARDS.approved);

    const partial = await refund(payment.id, { amount: 50_000 });
    expect(partial.status).toBe(200);
    const afterPartial = PaymentView.parse(((await partial.json()) as { data: unknown }).data);
    expect(afterPartial).toMatchObject({ status: 'success', refundedAmount: 50_000 });

    const tooMuch = await refund(payment.id, { amount: 100_001 });
    expect(tooMuch.status).toBe(400);
    expect(StandardError.parse(await tooMuch.json()).errorCode).toBe('VALIDATION400_BAD_REQUEST');

    const rest = await refund(payment.id);
    const final = PaymentView.parse(((await rest.json()) as { data: unknown }).data);
    expect(final).toMatchObject({ status: 'refunded', refundedAmount: 150_000 });
    await expect
      .poll(() => events(payment.id), { timeout: 5_000 })
      .toEqual([
        'payment.created',
        'payment.processing',
        'payment.succeeded',
        // One event per confirmed refund: the partial one, then the rest.
        'payment.refunded',
        'payment.refunded',
      ]);
  });

  it('a retried partial refund with the same Idempotency-Key pays back once', async () => {
    const payment = await registered();
    await payByHttp(payment.checkoutUrl, CARDS.approved);
    const headers = { 'x-api-key': merchant.testKey, 'idempotency-key': `refund-${payment.id}` };
    const first = await stack.post(
      `/api/v1/payments/${payment.id}/refund`,
      { amount: 20_000 },
      headers,
    );
    const again = await stack.post(
      `/api/v1/payments/${payment.id}/refund`,
      { amount: 20_000 },
      headers,
    );
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(await first.json());
    expect((await read(payment.id)).refundedAmount).toBe(20_000);

    const otherBody = await stack.post(
      `/api/v1/payments/${payment.id}/refund`,
      { amount: 10_000 },
      headers,
    );
    expect(otherBody.status).toBe(409);
    expect(StandardError.parse(await otherBody.json()).errorCode).toBe('IDEMPOTENCY409_KEY_REUSED');
  });

  it('refunds only the rest of a refund made at the card network outside dzpay, and never counts it as its own', async () => {
    const payment = await registered();
    const { orderId } = await payByHttp(payment.checkoutUrl, CARDS.approved);
    // The card network refunds 30 000 behind our back (its back office, say). A refund
    // of dzpay's own whose answer was lost is an intent instead: see
    // services/payments/test/refund.service.test.ts.
    await fetch(`${stack.sandbox!.url}/payment/rest/refund.do`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        userName: 'sandbox',
        password: 'sandbox',
        orderId,
        amount: '30000',
      }).toString(),
    });
    const rest = await refund(payment.id);
    expect(rest.status).toBe(200);
    const final = PaymentsRefundReply.parse(((await rest.json()) as { data: unknown }).data);
    // dzpay's refunded amount is its own refunds' (the 30 000 is the reconciliation's
    // alarm, never absorbed); it asked only what was left.
    expect(final).toMatchObject({ refundedAmount: 120_000, refund: { amount: 120_000 } });
    // The card network paid back the total once: 30 000 then the remaining 120 000.
    expect(await sandboxOrderStatus(stack.sandbox!.url, orderId)).toBe(4);
    const more = await refund(payment.id);
    expect(more.status).toBe(400);
  });

  it('refuses to refund a payment that did not succeed: 409 PAYMENT_INSTANCE409_NOT_REFUNDABLE', async () => {
    const payment = await registered();
    const response = await refund(payment.id);
    expect(response.status).toBe(409);
    expect(StandardError.parse(await response.json()).errorCode).toBe(
      'PAYMENT_INSTANCE409_NOT_REFUNDABLE',
    );
  });

  it('two refunds of the whole payment at once: exactly one goes through', async () => {
    const payment = await registered();
    await payByHttp(payment.checkoutUrl, CARDS.approved);
    const statuses = await Promise.all(
      [refund(payment.id), refund(payment.id)].map(async (r) => (await r).status),
    );
    expect(statuses.sort()).toEqual([200, 409]);
    expect((await read(payment.id)).refundedAmount).toBe(150_000);
  });
});
