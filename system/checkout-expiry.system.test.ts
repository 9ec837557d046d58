import { randomUUID } from 'node:crypto';
import { PaymentView, RegisteredPayment } from '@dzpay/contracts';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARDS, submitCard } from './support/payer.ts';
import { eventTypesOf } from './support/payment-events.ts';
import { sandboxOrderStatus } from './support/sandbox-orders.ts';
import { startStack, type Stack } from './support/stack.ts';

const WINDOW_MS = 1_500;
let stack: Stack;
let merchant: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  // The spec's 15-minute window, shortened so a test can see it close.
  stack = await startStack(
    'checkout-expiry',
    {},
    { withPayments: { PAYMENT_WINDOW_MS: String(WINDOW_MS), SWEEP_INTERVAL_MS: '200' } },
  );
  merchant = await stack.merchant('Épicerie Oran', { walletId: 'W-3' });
});
afterAll(() => stack?.stop());

let seq = 0;
async function registered() {
  const response = await stack.post(
    '/api/v1/payments',
    {
      amount: 80_000,
      currency: 'DZD',
      reference: `EXP-${Date.now()}-${seq++}`,
      failureUrl: 'https://shop.example/echec',
    },
    { 'x-api-key': merchant.testKey },
  );
  return RegisteredPayment.parse(((await response.json()) as { data: unknown }).data);
}

async function read(id: string): Promise<PaymentView> {
  const response = await stack.get(`/api/v1/payments/${id}`, { 'x-api-key': merchant.testKey });
  return PaymentView.parse(((await response.json()) as { data: unknown }).data);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the 15-minute window (shortened here)', () => {
  it('an unopened payment becomes expired, a payment.failed event, and never reaches the card network', async () => {
    const payment = await registered();
    await expect
      .poll(async () => (await read(payment.id)).status, { timeout: 5_000 })
      .toBe('expired');
    expect((await read(payment.id)).orderId).toBeNull();
    await expect
      .poll(() => eventTypesOf(stack.gateway.runtime.nats, stack.infra.natsPrefix, payment.id), {
        timeout: 5_000,
      })
      .toEqual(['payment.created', 'payment.failed']);
  });

  it('an opened, unpaid payment becomes expired, and its card order is cancelled', async () => {
    const payment = await registered();
    const pay = await fetch(`${payment.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    await expect
      .poll(async () => (await read(payment.id)).status, { timeout: 5_000 })
      .toBe('expired');
    const view = await read(payment.id);
    expect(await sandboxOrderStatus(stack.sandbox!.url, view.orderId!)).toBe(3);
    await expect
      .poll(() => eventTypesOf(stack.gateway.runtime.nats, stack.infra.natsPrefix, payment.id), {
        timeout: 5_000,
      })
      .toEqual(['payment.created', 'payment.processing', 'payment.failed']);
  });

  it('reopening an expired link shows that it expired, with no way to pay', async () => {
    const payment = await registered();
    await sleep(WINDOW_MS + 300);
    const page = await (await fetch(`${payment.checkoutUrl}?lang=fr`)).text();
    expect(page).toContain('Ce lien de paiement a expiré');
    expect(page).not.toContain('<form');
    const pay = await fetch(`${payment.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
    expect(new URL(pay.headers.get('location')!, payment.checkoutUrl).pathname).toBe(
      new URL(payment.checkoutUrl).pathname,
    );
  });

  it('a payer still on the card form when the window closes cannot pay: the order is refused', async () => {
    const payment = await registered();
    const formUrl = (
      await fetch(`${payment.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })
    ).headers.get('location')!;
    expect((await fetch(formUrl)).status).toBe(200);

    await expect
      .poll(async () => (await read(payment.id)).status, { timeout: 5_000 })
      .toBe('expired');
    const submit = await submitCard(formUrl, CARDS.approved, 'LATE PAYER');
    const back = await fetch(submit.headers.get('location')!, { redirect: 'manual' });
    const landed = new URL(back.headers.get('location')!);
    expect(landed.pathname).toBe('/echec');
    expect(landed.searchParams.get('reference')).toBe(payment.reference);

    const view = await read(payment.id);
    expect(view.status).toBe('expired');
    // Not charged: the card network holds the order cancelled, never deposited.
    expect(await sandboxOrderStatus(stack.sandbox!.url, view.orderId!)).toBe(3);
  });
});

describe('the sweeper, for what nobody comes back for', () => {
  const db = () => postgres(stack.infra.databaseUrl, { max: 1, onnotice: () => {} });

  it('expires an attempt whose order the card network no longer knows (it took no money)', async () => {
    const payment = await registered();
    const sql = db();
    // As after a card network (or sandbox) restart: the order id names nothing there.
    await sql`update payments.payments set cardnet_order_id = ${randomUUID()} where id = ${payment.id}`;
    await sql.end();
    await expect
      .poll(async () => (await read(payment.id)).status, { timeout: 5_000 })
      .toBe('expired');
  });

  it('refunds money the card network took for an attempt we had reported failed', async () => {
    const payment = await registered();
    const formUrl = (
      await fetch(`${payment.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })
    ).headers.get('location')!;
    const sql = db();
    // As when refunding a late payment failed: failed for the merchant, money still due back.
    await sql`update payments.payments
              set status = 'failed', failure_reason = 'expired', refund_due = true
              where id = ${payment.id}`;
    await submitCard(formUrl, CARDS.approved, 'LATE PAYER');
    const orderId = new URL(formUrl).searchParams.get('mdOrder')!;
    await expect
      .poll(() => sandboxOrderStatus(stack.sandbox!.url, orderId), { timeout: 5_000 })
      .toBe(4);
    await expect
      .poll(async () => {
        const [row] = await sql<{ refund_due: boolean }[]>`
          select refund_due from payments.payments where id = ${payment.id}`;
        return row!.refund_due;
      })
      .toBe(false);
    await sql.end();
    expect((await read(payment.id)).status).toBe('expired');
  });
});

describe('a payment the card network took after the window closed', () => {
  let lateStack: Stack;
  beforeAll(async () => {
    // No sweeper pass during the test: nothing cancels the order before the payer pays.
    lateStack = await startStack(
      'checkout-late',
      {},
      { withPayments: { PAYMENT_WINDOW_MS: String(WINDOW_MS), SWEEP_INTERVAL_MS: '3600000' } },
    );
  });
  afterAll(() => lateStack?.stop());

  it('is refused: refunded at the card network, expired for the merchant, payer sent to failureUrl', async () => {
    const shop = await lateStack.merchant('Late shop', { walletId: 'W-4' });
    const created = await lateStack.post(
      '/api/v1/payments',
      {
        amount: 80_000,
        currency: 'DZD',
        reference: `LATE-${Date.now()}`,
        failureUrl: 'https://shop.example/echec',
      },
      { 'x-api-key': shop.testKey },
    );
    const payment = RegisteredPayment.parse(((await created.json()) as { data: unknown }).data);
    const formUrl = (
      await fetch(`${payment.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })
    ).headers.get('location')!;
    await sleep(WINDOW_MS + 300);

    const submit = await submitCard(formUrl, CARDS.approved, 'LATE PAYER');
    const back = await fetch(submit.headers.get('location')!, { redirect: 'manual' });
    expect(new URL(back.headers.get('location')!).pathname).toBe('/echec');

    const response = await lateStack.get(`/api/v1/payments/${payment.id}`, {
      'x-api-key': shop.testKey,
    });
    const view = PaymentView.parse(((await response.json()) as { data: unknown }).data);
    expect(view.status).toBe('expired');
    // The money went back: the card network's order is refunded (4).
    expect(await sandboxOrderStatus(lateStack.sandbox!.url, view.orderId!)).toBe(4);
  });
});
