import { randomBytes } from 'node:crypto';
import { Rpc } from '@dzpay/contracts';
import { requestRpc, partnerSecretOwner, sealSecret } from '@dzpay/platform';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsRepository } from '@dzpay/accounts';
import { CARDS, submitCard } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

const SECRETS_KEY = randomBytes(32);
const PARTNER_SECRET = 'partner-api-secret-123';
let stack: Stack;
let partner: PartnerServer;
let merchantId: string;

beforeAll(async () => {
  partner = await startPartnerServer();
  stack = await startStack(
    'agency-flow',
    { SECRETS_KEY: SECRETS_KEY.toString('base64'), RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: true },
  );
  const merchant = await stack.merchant('Librairie du Partenaire', { walletId: 'W-A', feeDzd: 20 });
  merchantId = merchant.id;
  const accounts = accountsRepository(stack.gateway.runtime.sql);
  await accounts.setPartnerEndpoint(
    merchantId,
    'test',
    partner.url,
    sealSecret(PARTNER_SECRET, SECRETS_KEY, partnerSecretOwner(merchantId, 'test')),
  );
});
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
});

const page = (reference: string) =>
  `${stack.gateway.url}/pay/${merchantId}/${encodeURIComponent(reference)}?mode=test&lang=fr`;
const post = (url: string) => fetch(url, { method: 'POST', redirect: 'manual' });

describe('paying a partner product reference', () => {
  it("shows the partner's product, asked with the partner's secret and a timestamp", async () => {
    const response = await fetch(page('BOOK-1'));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('Livre BOOK-1');
    expect(html).toMatch(/1\s?500,50/);
    const asked = partner.requests.find((request) => request.path === 'BOOK-1')!;
    expect(asked.headers.authorization).toBe(`Bearer ${PARTNER_SECRET}`);
    expect(Math.abs(Number(asked.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
  });

  it.each([
    ['MISSING-1', 404, 'Aucun produit'],
    ['PAID-1', 409, 'déjà payée'],
    ['DOWN-1', 503, 'ne répond pas'],
    ['GARBAGE-1', 503, 'ne répond pas'],
  ])('partner answer for %s: a clear page (%i) and no lock', async (reference, status, text) => {
    const response = await post(page(reference));
    expect(response.status).toBe(status);
    expect(await response.text()).toContain(text);
    const sql = postgres(stack.infra.databaseUrl, { max: 1 });
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from payments.payments where reference = ${reference}`;
    await sql.end();
    expect(row!.n).toBe(0);
  });

  it('a partner that never answers is a clear page too, after the lookup timeout', async () => {
    const response = await fetch(page('SLOW-1'));
    expect(response.status).toBe(503);
  }, 20_000);

  it('locks the reference: a second payer is told it is being paid and when to retry', async () => {
    const first = await post(page('BOOK-2'));
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toMatch(/^\/checkout\/[A-Za-z0-9_-]{43}\?lang=fr$/);
    const second = await post(page('BOOK-2'));
    expect(second.status).toBe(409);
    const html = await second.text();
    expect(html).toContain('en cours de paiement');
    expect(html).toContain('Réessayez après');
  });

  it('pays the reference through the hosted checkout and frees it for nobody else', async () => {
    const started = await post(page('BOOK-3'));
    const checkoutUrl = new URL(started.headers.get('location')!, stack.gateway.url).href;
    const formUrl = (await post(`${checkoutUrl.split('?')[0]}/pay`)).headers.get('location')!;
    const back = await submitCard(formUrl, CARDS.approved);
    const landing = await fetch(back.headers.get('location')!, { redirect: 'manual' });
    expect(landing.status).toBe(200);
    expect(await landing.text()).toContain('Paiement réussi');

    // Paid once: the partner may not know yet, dzpay does.
    const again = await post(page('BOOK-3'));
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('déjà payée');
  });

  it('a reference no product can have (empty, too long, a NUL) is not found, never asked, never a 5xx', async () => {
    for (const reference of ['', 'B'.repeat(256), 'BOOK\u0000X']) {
      for (const method of ['GET', 'POST']) {
        const response = await fetch(page(reference), { method, redirect: 'manual' });
        expect(response.status, `${method} ${reference.length} characters`).toBe(404);
        expect(await response.text()).toContain('Aucun produit');
      }
    }
    expect(partner.requests.some((request) => request.path.length > 255)).toBe(false);
  });

  it('never asks the partner for a dot-segment path', async () => {
    const response = await fetch(`${stack.gateway.url}/pay/${merchantId}/%2E%2E?mode=test`);
    expect(response.status).toBe(404);
    expect(partner.requests.some((request) => request.path === '' || request.path === '..')).toBe(
      false,
    );
  });
});

describe('the reference lock under contention', () => {
  const askOnce = (reference: string) =>
    requestRpc(
      stack.gateway.runtime.nats,
      stack.infra.natsPrefix,
      Rpc.attemptStart,
      {
        merchant: {
          merchantId,
          mode: 'test',
          name: 'Librairie du Partenaire',
          feeDzd: 0,
          minAmount: 5_000,
          maxAmount: 100_000_000,
          hasWallet: true,
        },
        reference,
        language: 'fr',
        // Payments finds the partner in the directory: no URL or secret in the message.
        source: { kind: 'product' },
      },
      { timeoutMs: 30_000 },
    ).then(
      () => 'started',
      (error: { code?: string }) => error.code ?? 'error',
    );

  /**
   * A payer's attempt, tried again as a payer would while the partner's lookup did not
   * answer in time (500 lookups at once on a busy machine can starve the partner server
   * of this process): the lock is what is under test, and each payer ends with its
   * final answer, started or refused.
   */
  async function startAttempt(reference: string): Promise<string> {
    for (let tries = 1; ; tries += 1) {
      const outcome = await askOnce(reference);
      if (outcome !== 'PARTNER503_UNAVAILABLE' || tries === 5) return outcome;
    }
  }

  it('500 concurrent attempts on one reference: exactly one holds it, the others are refused', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 500 }, () => startAttempt('BOOK-RACE-1')),
    );
    expect(outcomes.filter((o) => o === 'started')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'REFERENCE409_LOCKED')).toHaveLength(499);
  }, 120_000);

  it('the same with Redis flushed again and again while it runs: Postgres still lets only one through', async () => {
    const redis = new Redis(stack.infra.redisUrl);
    let flushed = 0;
    let flushing = Promise.resolve();
    const timer = setInterval(() => {
      flushing = flushing.then(async () => {
        const keys = await redis.keys(`${stack.infra.redisPrefix}lock:*`);
        if (keys.length > 0) flushed += await redis.del(...keys);
      });
    }, 2);
    const outcomes = await Promise.all(
      Array.from({ length: 500 }, () => startAttempt('BOOK-RACE-2')),
    );
    clearInterval(timer);
    await flushing;
    await redis.quit();
    expect(flushed).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o === 'started')).toHaveLength(1);
    const counts = Object.fromEntries(
      [...new Set(outcomes)].map((o) => [o, outcomes.filter((x) => x === o).length]),
    );
    expect(counts, JSON.stringify(counts)).toEqual({ started: 1, REFERENCE409_LOCKED: 499 });
  }, 120_000);
});

describe('paying a static QR code', () => {
  const qrPage = (token: string) => `${stack.gateway.url}/qr/${token}?lang=fr`;
  const key = async () => {
    const shop = await stack.merchant('QR shop', { walletId: 'W-Q' });
    return shop;
  };

  it('one amount goes straight to confirmation; several let the payer choose; none says so', async () => {
    const shop = await key();
    const token = await stack.qrCode(shop.id);
    expect(await (await fetch(qrPage(token))).text()).toContain('Rien à payer');

    await stack.post(
      '/set-qr-config',
      { token, amounts: [500], singleUse: false },
      { 'x-api-key': shop.testKey },
    );
    const one = await (await fetch(qrPage(token))).text();
    expect(one.match(/<form/g)).toHaveLength(1);

    await stack.post(
      '/set-qr-config',
      { token, amounts: [500, 1000, 1500.5], singleUse: false },
      { 'x-api-key': shop.testKey },
    );
    const several = await (await fetch(qrPage(token))).text();
    expect(several).toContain('Choisissez le montant');
    expect(several.match(/<form/g)).toHaveLength(3);
  });

  it('answers hostile input with a page, never a 5xx', async () => {
    const shop = await key();
    const token = await stack.qrCode(shop.id);
    await stack.post(
      '/set-qr-config',
      { token, amounts: [500, 1000], singleUse: false },
      { 'x-api-key': shop.testKey },
    );
    // A NUL in the token: no QR code can have it, so there is nothing to pay.
    const nul = await fetch(`${stack.gateway.url}/qr/%00?lang=fr`);
    expect(nul.status).toBeLessThan(500);
    expect(await nul.text()).toContain('Rien à payer');
    // A JSON body instead of the page's form: no choice made, the payer is sent back.
    const json = await fetch(qrPage(token), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ choice: 0 }),
      redirect: 'manual',
    });
    expect(json.status).toBeLessThan(500);
  });

  it('an expired configuration offers nothing to pay', async () => {
    const shop = await key();
    const token = await stack.qrCode(shop.id);
    const expiresAt = new Date(Date.now() + 800).toISOString();
    await stack.post(
      '/set-qr-config',
      { token, amounts: [500], expiresAt, singleUse: false },
      { 'x-api-key': shop.testKey },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await (await fetch(qrPage(token))).text()).toContain('Rien à payer');
  });

  it('a single-use configuration is cleared by the first successful payment', async () => {
    const shop = await key();
    const token = await stack.qrCode(shop.id);
    await stack.post(
      '/set-qr-config',
      { token, amounts: [750], singleUse: true },
      { 'x-api-key': shop.testKey },
    );
    const form = new URLSearchParams({ choice: '0' }).toString();
    const started = await fetch(qrPage(token), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      redirect: 'manual',
    });
    expect(started.status).toBe(303);
    const checkoutUrl = new URL(started.headers.get('location')!, stack.gateway.url).href.split(
      '?',
    )[0]!;
    // A second payer meanwhile: the token is held by the first.
    const second = await fetch(qrPage(token), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      redirect: 'manual',
    });
    expect(second.status).toBe(409);

    const formUrl = (await post(`${checkoutUrl}/pay`)).headers.get('location')!;
    const back = await submitCard(formUrl, CARDS.approved);
    await fetch(back.headers.get('location')!, { redirect: 'manual' });
    await expect
      .poll(async () => (await stack.readQr(token)).state, { timeout: 10_000 })
      .toBe('none');
    expect(await (await fetch(qrPage(token))).text()).toContain('Rien à payer');
  });
});
