import { mkdir, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { PaymentView, RegisteredPayment, type Language } from '@dzpay/contracts';
import type { Browser, Page } from 'playwright-core';
import { documentLanguage, inContext, launchChromium, summaryOf } from './support/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcessStack, type ProcessStack } from './support/process-stack.ts';

/**
 * The payer's whole journey in a real browser, against every service started as its own
 * process: the gateway's checkout page, the card network sandbox's form, and the way
 * back to the merchant's site.
 */

const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
const SCENARIO_TIMEOUT_MS = 60_000;
const MERCHANT_NAME = 'Librairie Ibn Khaldoun';
const AMOUNT = 250_000; // 2 500,00 DZD; with the 50 DZD fee the card pays 2 550,00 DZD

interface Tenant {
  stack: ProcessStack;
  merchant: { id: string; testKey: string };
}

let browser: Browser | undefined;
let main: Tenant | undefined;
/** Its payments service closes the payment window after 2 s. */
let shortWindow: Tenant | undefined;
let landingServer: Server | undefined;
let landingUrl = '';

/** The merchant's site: every path is a landing page, as a shop's thank-you page would be. */
async function startLandingServer(): Promise<void> {
  landingServer = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Merchant landing</title><h1>merchant landing</h1>');
  });
  await new Promise<void>((resolve) => landingServer!.listen(0, '127.0.0.1', resolve));
  landingUrl = `http://127.0.0.1:${(landingServer.address() as AddressInfo).port}`;
}

async function tenant(label: string, payments: Record<string, string> = {}): Promise<Tenant> {
  const stack = await startProcessStack(label, { payments });
  try {
    return { stack, merchant: await stack.merchant(MERCHANT_NAME) };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

beforeAll(async () => {
  const started = await Promise.allSettled([
    launchChromium(),
    tenant('checkout-browser'),
    tenant('checkout-browser-exp', { PAYMENT_WINDOW_MS: '2000', SWEEP_INTERVAL_MS: '300' }),
    startLandingServer(),
  ]);
  // Keep whatever started, so afterAll stops it even when something else failed.
  const [launched, mainStack, shortStack] = started;
  if (launched.status === 'fulfilled') browser = launched.value;
  if (mainStack.status === 'fulfilled') main = mainStack.value;
  if (shortStack.status === 'fulfilled') shortWindow = shortStack.value;
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
}, 120_000);

afterAll(async () => {
  // Everything is stopped even when one of them fails to stop.
  const stopped = await Promise.allSettled([
    browser?.close(),
    main?.stack.stop(),
    shortWindow?.stack.stop(),
    new Promise((resolve) => (landingServer ? landingServer.close(resolve) : resolve(null))),
  ]);
  const failed = stopped.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
});

let seq = 0;
async function register(
  { stack, merchant }: Tenant,
  language: Language,
  urls: { successUrl: string; failureUrl: string } = {
    successUrl: `${landingUrl}/merci?cart=42`,
    failureUrl: `${landingUrl}/echec?cart=42`,
  },
): Promise<RegisteredPayment> {
  const response = await fetch(`${stack.gatewayUrl}/api/v1/payments`, {
    method: 'POST',
    headers: { 'x-api-key': merchant.testKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      amount: AMOUNT,
      currency: 'DZD',
      reference: `BR-${Date.now()}-${seq++}`,
      ...urls,
      language,
    }),
  });
  const body = await response.text();
  expect(response.status, body).toBe(201);
  const payment = RegisteredPayment.parse((JSON.parse(body) as { data: unknown }).data);
  tokensSeen.push(new URL(payment.checkoutUrl).pathname.split('/').at(-1)!);
  return payment;
}

/** The checkout tokens handed out, which must never reach a log. */
const tokensSeen: string[] = [];

async function read({ stack, merchant }: Tenant, id: string): Promise<PaymentView> {
  const response = await fetch(`${stack.gatewayUrl}/api/v1/payments/${id}`, {
    headers: { 'x-api-key': merchant.testKey },
  });
  const body = await response.text();
  expect(response.status, body).toBe(200);
  return PaymentView.parse((JSON.parse(body) as { data: unknown }).data);
}

/**
 * Runs a scenario in a fresh browser context. A failure names the page the browser was
 * on and shows what every service of the stack wrote.
 */
async function inBrowser(tenantOf: Tenant | undefined, scenario: (page: Page) => Promise<void>) {
  if (!browser || !tenantOf) throw new Error('the browser or the services did not start');
  await inContext(browser, scenario, () => tenantOf.stack.output());
}

/** Presses pay on the checkout page, then types the card on the sandbox's form. */
async function payWithCard(page: Page, { stack }: Tenant, pan: string): Promise<void> {
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL((url) => url.pathname === '/payment/merchants/form');
  expect(page.url().startsWith(`${stack.sandboxUrl}/`)).toBe(true);
  await page.fill('#pan', pan);
  await page.fill('#expiry', '12/30');
  await page.fill('#cvv', '123');
  await page.fill('#cardholderName', 'AMINA BELKACEM');
  await page.locator('form button[type="submit"]').click();
}

describe('a payer in a browser, every service its own process', () => {
  it(
    'approved card: checkout page, card form, then the successUrl with the reference appended',
    async () => {
      await inBrowser(main, async (page) => {
        const payment = await register(main!, 'en', {
          successUrl: `${landingUrl}/merci?cart=42&step=done`,
          failureUrl: `${landingUrl}/echec?cart=42`,
        });
        expect(payment).toMatchObject({ amount: AMOUNT, fees: 50, total: 255_000 });

        await page.goto(payment.checkoutUrl);
        const summary = await summaryOf(page);
        expect(summary['Merchant']).toBe(MERCHANT_NAME);
        expect(summary['Reference']).toBe(payment.reference);
        expect(summary['Amount']).toMatch(/2,500\.00/);
        expect(summary['Fee']).toMatch(/50\.00/);
        expect(summary['Total to pay']).toMatch(/2,550\.00/);
        await expect(page.locator('form button[type="submit"]').textContent()).resolves.toMatch(
          /2,550\.00/,
        );

        await payWithCard(page, main!, '6280580000000009');
        await page.waitForURL((url) => url.href.startsWith(`${landingUrl}/merci`));
        const landed = new URL(page.url());
        expect(landed.searchParams.get('cart')).toBe('42');
        expect(landed.searchParams.get('step')).toBe('done');
        expect(landed.searchParams.get('reference')).toBe(payment.reference);
        await expect(page.locator('h1').textContent()).resolves.toBe('merchant landing');

        const view = await read(main!, payment.id);
        expect(view.status).toBe('success');
        expect(view.maskedPan).toMatch(/^628058\*+0009$/);
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'declined card: lands on the failureUrl with the reference appended, status failed',
    async () => {
      await inBrowser(main, async (page) => {
        const payment = await register(main!, 'fr');
        await page.goto(payment.checkoutUrl);
        await payWithCard(page, main!, '6280580000000017');
        await page.waitForURL((url) => url.href.startsWith(`${landingUrl}/echec`));
        const landed = new URL(page.url());
        expect(landed.searchParams.get('cart')).toBe('42');
        expect(landed.searchParams.get('reference')).toBe(payment.reference);

        const view = await read(main!, payment.id);
        expect(view.status).toBe('failed');
        expect(view.failureReason).toBeTruthy();
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'expired link: once the payment window closed the page says so and offers no pay button',
    async () => {
      await inBrowser(shortWindow, async (page) => {
        const payment = await register(shortWindow!, 'fr');
        await new Promise((resolve) => setTimeout(resolve, 3_000));

        await page.goto(payment.checkoutUrl);
        await expect(page.locator('[role="status"]').textContent()).resolves.toBe(
          'Ce lien de paiement a expiré',
        );
        expect(await page.locator('button').count()).toBe(0);
        expect((await read(shortWindow!, payment.id)).status).toBe('expired');
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'Arabic checkout page: right to left, screenshot, and the switch to French',
    async () => {
      await inBrowser(main, async (page) => {
        const payment = await register(main!, 'ar');
        await page.goto(payment.checkoutUrl);
        expect(await documentLanguage(page)).toEqual({ dir: 'rtl', lang: 'ar' });
        await expect(page.locator('h1').textContent()).resolves.toBe('دفع آمن');

        await mkdir(ARTIFACTS, { recursive: true });
        const screenshot = `${ARTIFACTS}checkout-ar.png`;
        await page.screenshot({ path: screenshot, fullPage: true });
        expect((await stat(screenshot)).size).toBeGreaterThan(1_000);

        await page.locator('nav a[hreflang="fr"]').click();
        await page.waitForURL((url) => url.searchParams.get('lang') === 'fr');
        expect(await documentLanguage(page)).toEqual({ dir: 'ltr', lang: 'fr' });
        const summary = await summaryOf(page);
        expect(summary['Marchand']).toBe(MERCHANT_NAME);
        expect(summary).toHaveProperty('Total à payer');
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it('never writes a checkout token, key or card number into any service log', () => {
    const logs = main!.stack.output(10_000_000);
    for (const token of tokensSeen) expect(logs).not.toContain(token);
    expect(logs).not.toMatch(/pk_test_[A-Za-z0-9_-]{43}/);
    expect(logs).not.toContain('6280580000000009');
    expect(logs).toContain('request completed');
  });
});
