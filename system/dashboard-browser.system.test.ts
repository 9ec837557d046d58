import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentsMessages } from '../services/dashboard/src/pages/payments-messages.ts';
import { QrPageMessages } from '../services/dashboard/src/pages/qr-messages.ts';
import { documentLanguage } from './support/browser.ts';
import {
  chooseLanguage,
  dashboardUser,
  decodeQrPng,
  flashText,
  inDashboard,
  chromeHeight,
  overflowsSideways,
  screenshot,
  seriousViolations,
  signIn,
} from './support/dashboard-browser-support.ts';
import { connectPartner, payProductReference } from './support/partner-merchant.ts';
import { startDashboardBrowserStack } from './support/dashboard-browser-stack.ts';
import type { PartnerServer } from './support/partner-server.ts';
import { readPayment } from './support/paid-payment.ts';
import { CARDS } from './support/payer.ts';
import type { Stack } from './support/stack.ts';

/**
 * A merchant's day in the dashboard, in a real Chromium against the real dashboard,
 * payments, qr-config and webhook dispatcher: sign in, find a paid payment, refund part
 * of it, send its webhook again (the partner receives the same event id twice), rotate
 * the signing secret, download a QR code and read it back, sign out. Then the same pages
 * in Arabic on a phone (right to left, screenshots in test-artifacts/), and axe-core on
 * every page: no serious or critical violation.
 */

const SECRETS_KEY = randomBytes(32).toString('base64');
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const EMAIL = 'owner@librairie.dz';
const PASSWORD = 'correct horse battery staple';
const REFERENCE = 'BOOK-DASH-1';
const SCENARIO_TIMEOUT_MS = 120_000;
const en = PaymentsMessages.en;

let browser: Browser | undefined;
let stack: Stack | undefined;
let partner: PartnerServer | undefined;
let stopAll: (() => Promise<void>) | undefined;
let merchant: Awaited<ReturnType<Stack['merchant']>>;
let paymentId = '';
let qrToken = '';

beforeAll(async () => {
  ({
    browser,
    stack,
    partner,
    stop: stopAll,
  } = await startDashboardBrowserStack(
    'dashboard-browser',
    { SECRETS_KEY },
    {
      withPayments: true,
      withWebhooks: { SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200' },
      partner: { signingSecret: SIGNING_SECRET },
    },
  ));

  merchant = await stack.merchant('Librairie du Môle', { walletId: 'W-1' });
  await connectPartner(
    stack,
    merchant.id,
    { url: partner!.url, signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
  await dashboardUser(stack, merchant.id, EMAIL, PASSWORD);
  await payProductReference(stack, merchant.id, REFERENCE, CARDS.approved);
  // The partner hears of the success: the payment exists, paid, with its webhook sent.
  const deadline = Date.now() + 15_000;
  while (!partner!.webhooks.some((w) => w.data.reference === REFERENCE)) {
    if (Date.now() > deadline)
      throw new Error(`no webhook for ${REFERENCE}\n${JSON.stringify(partner!.webhooks)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  paymentId = String(partner!.webhooks.find((w) => w.data.reference === REFERENCE)!.data.paymentId);
  qrToken = await stack.qrCode(merchant.id);
}, 120_000);

afterAll(() => stopAll?.());

const base = () => stack!.dashboard!.url;

const paymentOverApi = () => readPayment(stack!, merchant.testKey, paymentId);

describe('the merchant dashboard in Chromium', () => {
  it(
    'sign in, find a payment, refund part, replay its webhook, rotate the secret, a QR code, sign out',
    async () => {
      await inDashboard(browser!, {}, async (page) => {
        await signIn(page, base(), EMAIL, PASSWORD);

        // Find the payment by its reference.
        await page.goto(`${base()}/dashboard/payments`);
        await page.locator('details.filters summary').click();
        await page.fill('#f-reference', REFERENCE);
        await page.locator('form.filters button[type="submit"]').click();
        await page.waitForURL((url) => url.searchParams.get('reference') === REFERENCE);
        const rows = page.locator('table tbody tr');
        // Waited for as long as the browser waits for anything (not a poll's 1 s, which a busy
        // machine outruns), then counted.
        await rows.first().waitFor();
        expect(await rows.count()).toBe(1);
        expect(await rows.first().locator('td').nth(1).textContent()).toBe(en.statuses.success);
        await rows.first().locator('a').click();
        await page.waitForURL((url) => url.pathname === `/dashboard/payments/${paymentId}`);
        expect(await page.locator('h1').textContent()).toBe(en.paymentTitle(REFERENCE));

        // The CSV of the dashboard is the API's, for the same filter.
        const dashboardCsv = await page.request.get(
          `${base()}/dashboard/payments/export?reference=${REFERENCE}&dialect=standard`,
        );
        const apiCsv = await stack!.get(`/api/v1/payments/export?reference=${REFERENCE}`, {
          'x-api-key': merchant.testKey,
        });
        const csv = await dashboardCsv.text();
        expect(csv.split('\r\n')).toHaveLength(3);
        expect(csv).toContain(`,${REFERENCE},AGENCY,success,`);
        expect(csv).toBe(await apiCsv.text());

        // Refund 500.25 DZD of it.
        const before = await paymentOverApi();
        await page.fill('#refund-amount', '500.25');
        await page.locator('form.refund button[type="submit"]').click();
        // Never one click: a confirmation says the amount, the fee and what is left.
        await page.waitForURL((url) => url.pathname.endsWith('/refund/confirm'));
        expect(await page.locator('#confirm-refund').textContent()).toBe(en.refundConfirmTitle);
        expect((await paymentOverApi()).refundedAmount).toBe(before.refundedAmount);
        await page.locator('form.refund-confirm button[type="submit"]').click();
        await page.waitForURL((url) => url.pathname === `/dashboard/payments/${paymentId}`);
        expect(await flashText(page)).toBe(en.refundDone('DZD\u00a0500.25'));
        expect((await paymentOverApi()).refundedAmount).toBe(before.refundedAmount + 50_025);
        // More than is left is refused with the reason, and nothing moves.
        await page.fill('#refund-amount', '999999');
        await page.locator('form.refund button[type="submit"]').click();
        await page.waitForURL((url) => url.pathname === `/dashboard/payments/${paymentId}`);
        expect(await flashText(page)).toMatch(/^At most DZD.* can still be refunded\.$/);
        expect((await paymentOverApi()).refundedAmount).toBe(50_025);

        // Send the success webhook again: the partner gets the same event id a second time.
        const eventId = partner!.webhooks.find((w) => w.data.reference === REFERENCE)!.id;
        const delivery = page.locator(`article.delivery[data-event-id="${eventId}"]`);
        expect(await delivery.count()).toBe(1);
        await delivery.locator('button[type="submit"]').click();
        await page.waitForURL((url) => url.pathname === `/dashboard/payments/${paymentId}`);
        expect(await flashText(page)).toBe(en.replayed);
        await expect
          .poll(() => partner!.webhooks.filter((w) => w.id === eventId).length, { timeout: 10_000 })
          .toBe(2);

        // Rotate the signing secret on the webhooks page: a new secret is shown once.
        await page.goto(`${base()}/dashboard/webhooks`);
        await page
          .locator('form[action="/dashboard/webhooks/rotate"] button[type="submit"]')
          .click();
        const secret = ((await page.locator('.secret').first().textContent()) ?? '').trim();
        expect(secret.length).toBeGreaterThan(20);
        expect(secret).not.toBe(SIGNING_SECRET);

        // A QR code: set its amounts, see them listed, download its PNG and read it back.
        await page.goto(`${base()}/dashboard/qr-codes/${encodeURIComponent(qrToken)}`);
        await page.fill('#qr-amounts', '1500\n2500,50');
        await page.locator('form[action$="/set"] button[type="submit"]').click();
        expect(await flashText(page)).toBe(QrPageMessages.en.saved);
        await page.goto(`${base()}/dashboard/qr-codes`);
        expect(await page.locator('table tbody').textContent()).toContain(
          'DZD\u00a01,500.00 · DZD\u00a02,500.50',
        );
        expect((await stack!.readQr(qrToken)).config?.amounts).toEqual([150_000, 250_050]);
        await page.goto(`${base()}/dashboard/qr-codes/${encodeURIComponent(qrToken)}`);
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.locator('a[href*="format=png"]').click(),
        ]);
        const png = await readFile(await download.path());
        // The printed code opens the payer's page on the public host (the gateway here).
        expect(decodeQrPng(png)).toBe(`${stack!.gateway.url}/qr/${encodeURIComponent(qrToken)}`);

        // An unpaid checkout is cancelled from its page: the payer can no longer pay it.
        const registered = await stack!.post(
          '/api/v1/payments',
          { amount: 250_000, currency: 'DZD', reference: 'ORDER-CANCEL-1' },
          { 'x-api-key': merchant.testKey },
        );
        expect(registered.status).toBe(201);
        const checkout = ((await registered.json()) as { data: { id: string } }).data;
        await page.goto(`${base()}/dashboard/payments/${checkout.id}`);
        await page.locator(`form[action$="/cancel"] button[type="submit"]`).click();
        await page.waitForURL((url) => url.pathname === `/dashboard/payments/${checkout.id}`);
        expect(await flashText(page)).toBe(en.cancelDone);
        const cancelled = await stack!.get(`/api/v1/payments/${checkout.id}`, {
          'x-api-key': merchant.testKey,
        });
        expect(((await cancelled.json()) as { data: { status: string } }).data.status).toBe(
          'cancelled',
        );
        expect(await page.locator('form[action$="/cancel"]').count()).toBe(0);

        // Another merchant's payment is not found.
        const foreign = await page.goto(
          `${base()}/dashboard/payments/00000000-0000-4000-8000-000000000000`,
        );
        expect(foreign?.status()).toBe(404);

        // Sign out: the pages send back to the sign-in page.
        await page.locator('form[action="/dashboard/logout"] button[type="submit"]').click();
        await page.waitForURL((url) => url.pathname === '/dashboard/login');
        await page.goto(`${base()}/dashboard/payments/${paymentId}`);
        expect(new URL(page.url()).pathname).toBe('/dashboard/login');
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  const pages = (): [string, string][] => [
    ['payments', `/dashboard/payments?reference=${REFERENCE}`],
    ['payment', `/dashboard/payments/${paymentId}`],
    ['qr-codes', '/dashboard/qr-codes'],
    ['qr-code', `/dashboard/qr-codes/${encodeURIComponent(qrToken)}`],
    ['qr-print', `/dashboard/qr-codes/${encodeURIComponent(qrToken)}/print`],
    ['report', '/dashboard/report'],
    ['webhooks', '/dashboard/webhooks'],
  ];

  it(
    'in Arabic on a phone: right to left, no sideways scrolling, screenshots, and no serious axe violation',
    async () => {
      await inDashboard(browser!, { phone: true }, async (page) => {
        await signIn(page, base(), EMAIL, PASSWORD);
        await chooseLanguage(page, 'ar');
        const problems: Record<string, unknown> = {};
        for (const [name, path] of pages()) {
          const response = await page.goto(`${base()}${path}`);
          expect(response?.status(), name).toBe(200);
          expect(await documentLanguage(page), name).toEqual({ lang: 'ar', dir: 'rtl' });
          await screenshot(page, `dashboard-ar-${name}`);
          const violations = await seriousViolations(page);
          if (violations.length) problems[name] = violations;
          if (await overflowsSideways(page)) problems[`${name} (sideways scrolling)`] = true;
          // The header and the navigation leave the page its screen: 120 px at most of 844.
          const chrome = await chromeHeight(page);
          if (chrome > 120)
            problems[`${name} (header and navigation ${Math.round(chrome)} px)`] = true;
        }
        expect(problems).toEqual({});
        // The Arabic texts are the pages' own: the payment page's title, for one.
        await page.goto(`${base()}/dashboard/payments/${paymentId}`);
        expect(await page.locator('h1').textContent()).toBe(
          PaymentsMessages.ar.paymentTitle(REFERENCE),
        );
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'in English and French on a desktop: no serious axe violation on any page',
    async () => {
      // The check itself can fail: a page with an image without a text alternative.
      await inDashboard(browser!, {}, async (page) => {
        await page.setContent(
          '<!doctype html><html lang="en"><title>t</title><main><img src="x.png"></main></html>',
        );
        expect((await seriousViolations(page)).map((v) => v.id)).toContain('image-alt');
      });
      for (const language of ['en', 'fr'] as const) {
        await inDashboard(browser!, {}, async (page) => {
          await signIn(page, base(), EMAIL, PASSWORD);
          await chooseLanguage(page, language);
          const problems: Record<string, unknown> = {};
          for (const [name, path] of pages()) {
            await page.goto(`${base()}${path}`);
            expect((await documentLanguage(page)).lang, name).toBe(language);
            const violations = await seriousViolations(page);
            if (violations.length) problems[name] = violations;
          }
          expect(problems).toEqual({});
        });
      }
    },
    SCENARIO_TIMEOUT_MS,
  );
});
