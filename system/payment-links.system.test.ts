import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { accountsRepository } from '@dzpay/accounts';
import { DzpayError, type DzpayClient } from '@dzpay/client';
import type { PaymentLinkView, PaymentListItem } from '@dzpay/contracts';
import { paymentLinkOf } from '@dzpay/partner-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPartner } from './support/partner-merchant.ts';
import { CARDS, payByHttp } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

/**
 * Payment links through the whole stack: made with the typed client, paid as a payer
 * would (the link's page, its form, the checkout, the sandbox's card form), each payment
 * an ordinary one that names its link in the API and in its webhook.
 */

const SECRETS_KEY = randomBytes(32).toString('base64');
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let stack: Stack;
let partner: PartnerServer;
let shop: Awaited<ReturnType<Stack['merchant']>>;
let client: DzpayClient;

beforeAll(async () => {
  partner = await startPartnerServer({ signingSecret: SIGNING_SECRET });
  stack = await startStack(
    'payment-links',
    { SECRETS_KEY },
    { withPayments: true, withWebhooks: { SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200' } },
  );
  shop = await stack.merchant('Librairie du Centre', { walletId: 'W-LINKS', feeDzd: 50 });
  await connectPartner(
    stack,
    shop.id,
    { url: partner.url, signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
  client = stack.client(shop.testKey);
});
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
});

const key = () => ({ 'x-api-key': shop.testKey });
const pathOf = (link: PaymentLinkView) => new URL(link.url).pathname;

/** The payer presses pay on the link's page: the checkout it is sent to, or the page's answer. */
async function pressPay(
  link: PaymentLinkView,
  amount?: string,
  attempt?: string,
): Promise<Response> {
  return fetch(`${stack.gateway.url}${pathOf(link)}?lang=fr`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      ...(amount === undefined ? {} : { amount }),
      ...(attempt === undefined ? {} : { attempt }),
    }).toString(),
    redirect: 'manual',
  });
}

/** The nonce of one render of the link's page (its form's hidden field). */
async function renderedAttempt(link: PaymentLinkView): Promise<string> {
  const html = await (await fetch(link.url)).text();
  const attempt = /name="attempt" value="([A-Za-z0-9_-]+)"/.exec(html)?.[1];
  if (!attempt) throw new Error('the page has no attempt field');
  return attempt;
}

async function paymentsOf(link: PaymentLinkView): Promise<PaymentListItem[]> {
  return (await client.listPayments({ paymentLinkId: link.id })).payments;
}

describe('a payment link made by API and paid by a payer', () => {
  let link: PaymentLinkView;
  let paymentId: string;

  it('is made with the typed client, and its page is served with the payer pages’ headers', async () => {
    link = await client.createPaymentLink({
      label: 'Le Petit Prince',
      amount: 150_050,
      metadata: { shelf: 'B4' },
    });
    expect(link).toMatchObject({ state: 'active', singleUse: false, paidCount: 0 });
    expect(link.url.startsWith(`${stack.gateway.url}/link/pl_`)).toBe(true);

    const page = await fetch(link.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain('Librairie du Centre');
    expect(html).toContain('Le Petit Prince');
    expect(html).toMatch(/1\s500,50/);

    const qr = await fetch(`${link.url}/qr`);
    expect(qr.headers.get('content-type')).toContain('image/svg+xml');
    expect(await client.paymentLinkQrSvg(link.id)).toContain('<svg');
  });

  it('sends the payer to an ordinary checkout, paid through the sandbox’s card form', async () => {
    const pressed = await pressPay(link);
    expect(pressed.status).toBe(303);
    const checkoutUrl = new URL(pressed.headers.get('location')!, stack.gateway.url);
    expect(checkoutUrl.pathname).toMatch(/^\/checkout\//);
    const paid = await payByHttp(`${checkoutUrl.origin}${checkoutUrl.pathname}`, CARDS.approved);
    expect(paid.landing.status).toBe(200);

    const [payment] = await paymentsOf(link);
    paymentId = payment!.id;
    expect(payment).toMatchObject({
      paymentLinkId: link.id,
      reference: `link-${link.id}-1`,
      status: 'success',
      amount: 150_050,
      total: 155_050,
      metadata: { shelf: 'B4' },
      channel: 'CHECKOUT',
    });
    expect((await client.getPayment(paymentId)).paymentLinkId).toBe(link.id);
    expect(await client.getPaymentLink(link.id)).toMatchObject({
      paidCount: 1,
      paidAmount: 150_050,
    });
  });

  it('is announced by the usual signed webhook, which names the link', async () => {
    await expect
      .poll(() => partner.webhooks.find((event) => event.data.paymentId === paymentId)?.type, {
        timeout: 10_000,
      })
      .toBe('payment.success');
    const event = partner.webhooks.find((e) => e.data.paymentId === paymentId)!;
    expect(event.data).toMatchObject({
      reference: `link-${link.id}-1`,
      metadata: { shelf: 'B4' },
      amount: 1500.5,
    });
    // The partner SDK reads the link back from the reference.
    expect(paymentLinkOf(event.data.reference)).toEqual({ paymentLinkId: link.id, number: 1 });
  });

  it('is refunded as any payment is', async () => {
    const refunded = await client.refundPayment(paymentId, { amount: 50_000 });
    expect(refunded.refundedAmount).toBe(50_000);
  });
});

describe('a single-use link', () => {
  it('takes one payment, then answers “already paid” to the page and to payers', async () => {
    const link = await client.createPaymentLink({
      label: 'Facture 2026-118',
      amount: 90_000,
      singleUse: true,
    });
    const pressed = await pressPay(link);
    const checkout = new URL(pressed.headers.get('location')!, stack.gateway.url);
    await payByHttp(`${checkout.origin}${checkout.pathname}`, CARDS.approved);

    const again = await pressPay(link);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('déjà été payé');
    expect((await fetch(link.url)).status).toBe(409);
    expect((await client.getPaymentLink(link.id)).state).toBe('used');
  });

  it('charges once when payers press pay at the same moment', async () => {
    const link = await client.createPaymentLink({
      label: 'Place de concert',
      amount: 250_000,
      singleUse: true,
    });
    const answers = await Promise.all(Array.from({ length: 6 }, () => pressPay(link)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 303)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(5);
    const busy = answers.find((answer) => answer.status === 409)!;
    expect(await busy.text()).toContain('en train de payer ce lien');

    // The payer who got the checkout pays, twice over in the card form: one charge.
    const winner = answers.find((answer) => answer.status === 303)!;
    const checkout = new URL(winner.headers.get('location')!, stack.gateway.url);
    await payByHttp(`${checkout.origin}${checkout.pathname}`, CARDS.approved, {
      submitTwice: true,
    });
    const payments = await paymentsOf(link);
    expect(payments.map((payment) => payment.status)).toEqual(['success']);
    expect((await pressPay(link)).status).toBe(409);
  });
});

describe('the same payer pressing twice', () => {
  it('a double click of one rendered form goes to one checkout, never “someone is paying”', async () => {
    const link = await client.createPaymentLink({
      label: 'Billet unique',
      amount: 30_000,
      singleUse: true,
    });
    const attempt = await renderedAttempt(link);
    const [first, second] = await Promise.all([
      pressPay(link, undefined, attempt),
      pressPay(link, undefined, attempt),
    ]);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    // The gateway gave up waiting, the payer sends the form again: the same checkout.
    const again = await pressPay(link, undefined, attempt);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await paymentsOf(link)).toHaveLength(1);
    // Another payer (whose page was rendered earlier) is told the link is being paid.
    const other = await pressPay(link, undefined, randomBytes(16).toString('base64url'));
    expect(other.status).toBe(409);
    expect((await fetch(link.url)).status).toBe(409);
  });

  it('presses beyond the limit, from one address on one link, get a 429 page', async () => {
    const link = await client.createPaymentLink({
      label: 'Don libre',
      minAmount: 10_000,
      maxAmount: 90_000,
    });
    // Refused amounts (never reaching payments) count as presses too.
    for (let i = 0; i < 10; i++) expect((await pressPay(link, '5')).status).toBe(400);
    const limited = await pressPay(link, '5');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toContain('text/html');
    expect(await limited.text()).toContain('Trop de demandes');
    // Another link's budget is its own.
    const other = await client.createPaymentLink({ label: 'Autre', amount: 20_000 });
    expect((await pressPay(other)).status).toBe(303);
  });
});

describe('a link that takes no payment says so', () => {
  it('expired: a clear page, and the API’s state', async () => {
    const link = await client.createPaymentLink({
      label: 'Soldes du week-end',
      minAmount: 10_000,
      maxAmount: 90_000,
      expiresAt: new Date(Date.now() + 1_000).toISOString(),
    });
    expect((await fetch(link.url)).status).toBe(200);
    await sleep(1_200);
    const page = await fetch(`${link.url}?lang=en`);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('This payment link has expired.');
    expect((await pressPay(link, '150')).status).toBe(410);
    expect((await client.getPaymentLink(link.id)).state).toBe('expired');
  });

  it('deactivated: a clear page, and the link deactivated once', async () => {
    const link = await client.createPaymentLink({ label: 'Ancien tarif', amount: 20_000 });
    const ended = await client.deactivatePaymentLink(link.id);
    expect(ended.state).toBe('deactivated');
    const page = await fetch(`${link.url}?lang=ar`);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('رابط الدفع هذا لم يعد نشطًا.');
    expect((await pressPay(link)).status).toBe(410);
    expect((await client.deactivatePaymentLink(link.id)).deactivatedAt).toBe(ended.deactivatedAt);
  });

  it('a payer’s amount outside the bounds: the page again, saying why', async () => {
    const link = await client.createPaymentLink({
      label: 'Don',
      minAmount: 10_000,
      maxAmount: 90_000,
    });
    const refused = await pressPay(link, '5');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('role="alert"');
    const accepted = await pressPay(link, '150,50');
    expect(accepted.status).toBe(303);
    const [payment] = await paymentsOf(link);
    expect(payment!.amount).toBe(15_050);
  });

  it('a fixed amount the merchant’s range no longer takes: a page saying so', async () => {
    const narrowed = await stack.merchant('Boutique du Port', { walletId: 'W-NARROW' });
    const link = await stack
      .client(narrowed.testKey)
      .createPaymentLink({ label: 'Panier', amount: 20_000 });
    await accountsRepository(stack.gateway.runtime.sql).updateMerchantTerms(narrowed.id, {
      minAmount: 50_000,
    });
    const refused = await pressPay(link);
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain('Ce marchand ne peut pas recevoir ce montant pour le moment.');
    expect(html).toContain('Demandez un nouveau lien au marchand.');
  });

  it('an unknown token: 404 page, without asking anything', async () => {
    expect((await stack.get('/link/pl_AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await stack.get('/link/%00')).status).toBe(404);
  });
});

describe('the merchant API', () => {
  it('refuses bad bodies in the standard envelope, field by field', async () => {
    const bad = await stack.post(
      '/api/v1/payment-links',
      { label: '', amount: 1.5, minAmount: 100 },
      key(),
    );
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as {
      errorCode: string;
      details: { failures: { field: string }[] };
    };
    expect(body.errorCode).toBe('VALIDATION400_BAD_REQUEST');
    expect(body.details.failures.map((failure) => failure.field)).toEqual(
      expect.arrayContaining(['label', 'amount']),
    );
    const range = await stack.post('/api/v1/payment-links', { label: 'x', amount: 100 }, key());
    expect(((await range.json()) as { errorCode: string }).errorCode).toBe(
      'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
    );
    const past = await stack.post(
      '/api/v1/payment-links',
      { label: 'x', amount: 10_000, expiresAt: '2020-01-01T00:00:00Z' },
      key(),
    );
    expect(past.status).toBe(400);
  });

  it('refuses a label with a bidirectional control: the payer page’s title would lie', async () => {
    const spoofed = await stack.post(
      '/api/v1/payment-links',
      { label: 'Facture \u202efdp.exe', amount: 10_000 },
      key(),
    );
    expect(spoofed.status).toBe(400);
    expect(await spoofed.json()).toMatchObject({
      errorCode: 'VALIDATION400_BAD_REQUEST',
      details: {
        failures: [
          { field: 'label', message: 'label must not contain bidirectional control characters' },
        ],
      },
    });
  });

  it('keeps links to their merchant and mode, and lists them newest first', async () => {
    const link = await client.createPaymentLink({ label: 'Privé', amount: 10_000 });
    const other = stack.client((await stack.merchant('Autre')).testKey);
    const live = stack.client(shop.liveKey);
    for (const outsider of [other, live]) {
      const refused = await outsider.getPaymentLink(link.id).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DzpayError);
      expect((refused as DzpayError).status).toBe(404);
    }
    const page = await client.listPaymentLinks({ limit: 2 });
    expect(page.links[0]!.id).toBe(link.id);
    expect(page.nextCursor).not.toBeNull();
  });

  it('records who made and deactivated a link in the audit log', async () => {
    const link = await client.createPaymentLink({ label: 'Audit', amount: 10_000 });
    await client.deactivatePaymentLink(link.id);
    // Written by the gateway's audit hooks once each answer is sent.
    const rows = () => stack.gateway.runtime.sql<{ action: string; actor_kind: string }[]>`
      select action, actor_kind from audit_events where target = ${link.id} order by at`;
    await expect.poll(rows, { timeout: 5_000 }).toEqual([
      { action: 'payment_link.create', actor_kind: 'api_key' },
      { action: 'payment_link.deactivate', actor_kind: 'api_key' },
    ]);
  });
});
