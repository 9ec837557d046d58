import { randomBytes } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { StatusRecord } from '@dzpay/contracts';
import type { Browser, Page } from 'playwright-core';
import { documentLanguage, inContext, summaryOf } from './support/browser.ts';
import { startBrowserStack, type BrowserStack } from './support/browser-stack.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Messages } from '../services/gateway/src/pages/messages.ts';
import type { PartnerServer } from './support/partner-server.ts';
import type { ProcessStack } from './support/process-stack.ts';

/**
 * The AGENCY channel in a real browser: a partner's product reference and a static QR
 * code, from the payer's page through the hosted checkout and the card network
 * sandbox's form to the result, with the status endpoint watched on the way. Every
 * service runs as its own process; the partner's server runs in this test process.
 */

const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
const SCENARIO_TIMEOUT_MS = 60_000;
const MERCHANT_NAME = 'Librairie Ibn Khaldoun';
const PARTNER_SECRET = `partner-secret-${randomBytes(12).toString('hex')}`;
const CARDS = { approved: '6280580000000009', declined: '6280580000000017' } as const;
const fr = Messages.fr;

let parts: BrowserStack | undefined;
let browser: Browser | undefined;
let stack: ProcessStack | undefined;
let partner: PartnerServer | undefined;
let merchant: { id: string; testKey: string };

beforeAll(async () => {
  parts = await startBrowserStack('agency-browser', {
    qrConfig: true,
    status: true,
    // The scenarios poll the status endpoint far more often than the spec's 60 a minute.
    gateway: { STATUS_RATE_LIMIT_PER_MINUTE: '10000', RATE_LIMIT_PER_MINUTE: '100000' },
  });
  ({ browser, stack, partner } = parts);
  merchant = await stack.merchant(MERCHANT_NAME);
  await stack.partnerEndpoint(merchant.id, partner.url, PARTNER_SECRET);
}, 120_000);

afterAll(async () => {
  await parts?.stop();
});

/** The payer's page of a product reference of the merchant, in test mode. */
const productUrl = (reference: string, lang = 'fr') =>
  `${stack!.gatewayUrl}/pay/${merchant.id}/${encodeURIComponent(reference)}?mode=test&lang=${lang}`;

const qrUrl = (token: string) => `${stack!.gatewayUrl}/qr/${token}?lang=fr`;

/** GET /partner/payments/v1/{reference}/status with the merchant's test key. */
async function statusOf(reference: string): Promise<StatusRecord> {
  const response = await fetch(
    `${stack!.gatewayUrl}/partner/payments/v1/${encodeURIComponent(reference)}/status`,
    { headers: { 'x-api-key': merchant.testKey } },
  );
  const body = await response.text();
  expect(response.status, body).toBe(200);
  return StatusRecord.parse((JSON.parse(body) as { data: unknown }).data);
}

const stageOf = async (reference: string) => (await statusOf(reference)).stage;

/**
 * Runs a scenario in a fresh browser context. A failure names the page the browser was
 * on and shows what every service of the stack wrote.
 */
async function inBrowser(scenario: (page: Page) => Promise<void>): Promise<void> {
  const services = stack;
  if (!browser || !services || !partner)
    throw new Error('the browser or the services did not start');
  await inContext(browser, scenario, () => services.output());
}

const text = async (page: Page, selector: string) =>
  ((await page.locator(selector).first().textContent()) ?? '').trim();

/** Presses the (first) pay button of the page and waits for the hosted checkout page. */
async function toCheckout(page: Page): Promise<void> {
  await page.locator('form button[type="submit"]').first().click();
  await page.waitForURL((url) => /^\/checkout\/[A-Za-z0-9_-]{43}$/.test(url.pathname));
}

/** On the hosted checkout page: presses pay and waits for the card network's form. */
async function toCardForm(page: Page): Promise<void> {
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL((url) => url.pathname === '/payment/merchants/form');
  expect(page.url().startsWith(`${stack!.sandboxUrl}/`)).toBe(true);
}

/** On the card form: types the card, submits, and answers what the result page says. */
async function payWithCard(page: Page, pan: string): Promise<string> {
  await page.fill('#pan', pan);
  await page.fill('#expiry', '12/30');
  await page.fill('#cvv', '123');
  await page.fill('#cardholderName', 'AMINA BELKACEM');
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL((url) => url.pathname.startsWith('/checkout/return/'));
  expect(page.url().startsWith(`${stack!.gatewayUrl}/`)).toBe(true);
  // The result page refreshes itself while the outcome is being confirmed.
  await expect
    .poll(() => text(page, '[role="status"]'), { timeout: 10_000 })
    .not.toBe(fr.processing);
  return text(page, '[role="status"]');
}

describe('paying a partner product reference in a browser, every service its own process', () => {
  it(
    'approved card: product page, checkout, card form (reference locked), then paid',
    async () => {
      await inBrowser(async (page) => {
        const response = await page.goto(productUrl('BOOK-B1'));
        expect(response?.status()).toBe(200);
        expect(await text(page, 'h1')).toBe(MERCHANT_NAME);
        const summary = await summaryOf(page);
        expect(summary[fr.product]).toBe('Livre BOOK-B1');
        expect(summary[fr.reference]).toBe('BOOK-B1');
        expect(summary[fr.amount]).toMatch(/^1\s?500,50\sDA$/);
        expect(summary[fr.fee]).toMatch(/^50,00\sDA$/);
        expect(summary[fr.total]).toMatch(/^1\s?550,50\sDA$/);
        expect(await text(page, 'form button[type="submit"]')).toMatch(/1\s?550,50/);
        // The partner was asked with the secret set through the admin CLI.
        const asked = partner!.requests.find((request) => request.path === 'BOOK-B1');
        expect(asked?.headers.authorization).toBe(`Bearer ${PARTNER_SECRET}`);
        // Looking at a product takes no lock.
        expect(await stageOf('BOOK-B1')).toBe('not_found');

        await toCheckout(page);
        const checkout = await summaryOf(page);
        expect(checkout[fr.merchant]).toBe(MERCHANT_NAME);
        expect(checkout[fr.reference]).toBe('BOOK-B1');
        expect(checkout[fr.total]).toMatch(/^1\s?550,50\sDA$/);

        await toCardForm(page);
        await expect.poll(() => stageOf('BOOK-B1'), { timeout: 5_000 }).toBe('locked');
        const locked = await statusOf('BOOK-B1');
        expect(locked).toMatchObject({ locked: true, paid: false, amount: 1500.5 });
        expect(Date.parse(locked.lockReleaseTime!)).toBeGreaterThan(Date.now());
        expect(locked.payment?.status).toMatch(/^(pending|processing)$/);

        expect(await payWithCard(page, CARDS.approved)).toBe(fr.success);
        await expect.poll(() => stageOf('BOOK-B1'), { timeout: 5_000 }).toBe('paid');
        const paid = await statusOf('BOOK-B1');
        expect(paid).toMatchObject({ locked: false, paid: true, lockReleaseTime: null });
        expect(paid.payment).toMatchObject({ status: 'success', amount: 1500.5, currency: 'DZD' });
        expect(paid.paymentId).toBe(locked.paymentId);
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'declined card: the result page says the payment did not go through; the reference is released',
    async () => {
      await inBrowser(async (page) => {
        await page.goto(productUrl('BOOK-B2'));
        await toCheckout(page);
        await toCardForm(page);
        expect(await payWithCard(page, CARDS.declined)).toBe(fr.failed);
        await expect.poll(() => stageOf('BOOK-B2'), { timeout: 5_000 }).toBe('released');
        expect((await statusOf('BOOK-B2')).payment?.status).toBe('failed');
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'partner answers: a clear page for each, no pay button, and no lock (even when pay is posted)',
    async () => {
      const cases = [
        ['MISSING-B', 404, fr.productNotFound],
        ['PAID-B', 409, fr.alreadyPaid],
        ['DOWN-B', 503, fr.partnerUnavailable],
        ['GARBAGE-B', 503, fr.partnerUnavailable],
      ] as const;
      await inBrowser(async (page) => {
        for (const [reference, status, message] of cases) {
          const response = await page.goto(productUrl(reference));
          expect(response?.status(), reference).toBe(status);
          expect(await text(page, 'h1'), reference).toBe(message);
          expect(await page.locator('button').count(), reference).toBe(0);
          // A payer pressing pay on a page shown before the partner's answer changed.
          const posted = await page.request.post(productUrl(reference), { maxRedirects: 0 });
          expect(posted.status(), reference).toBe(status);
          expect(await posted.text(), reference).toContain(message);
        }
        // The projection follows a new attempt within milliseconds (see the scenarios
        // above); give it ample time to show one that should not exist.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        for (const [reference] of cases)
          expect(await stageOf(reference), reference).toBe('not_found');
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'reference form: shown in test mode, it sends the typed reference and the language',
    async () => {
      await inBrowser(async (page) => {
        const response = await page.goto(`${stack!.gatewayUrl}/pay/${merchant.id}?mode=test`);
        expect(response?.status()).toBe(200);
        expect(await text(page, 'h1')).toBe(MERCHANT_NAME);
        expect(await text(page, 'label[for="reference"]')).toBe(fr.enterReference);
        expect(await page.locator('#reference').getAttribute('required')).not.toBeNull();

        const formUrl = page.url();
        const submitted = page.waitForRequest(
          (r) => r.isNavigationRequest() && r.url() !== formUrl,
        );
        await page.fill('#reference', 'BOOK-B4');
        await page.locator('form button[type="submit"]').click();
        const sent = new URL((await submitted).url());
        expect(sent.pathname).toBe(`/pay/${merchant.id}`);
        expect(sent.searchParams.get('reference')).toBe('BOOK-B4');
        expect(sent.searchParams.get('lang')).toBe('fr');
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  // A GET form replaces its action's query with its own fields: the mode must be one.
  it(
    "reference form: the payer types the reference and lands on that reference's page",
    async () => {
      await inBrowser(async (page) => {
        await page.goto(`${stack!.gatewayUrl}/pay/${merchant.id}?mode=test`);
        const formUrl = page.url();
        await page.fill('#reference', 'BOOK-B4');
        await page.locator('form button[type="submit"]').click();
        await page.waitForURL((url) => url.href !== formUrl);
        await page.waitForLoadState('load');
        expect(new URL(page.url()).pathname).toBe(`/pay/${merchant.id}/BOOK-B4`);
        expect(new URL(page.url()).searchParams.get('mode')).toBe('test');
        const summary = await summaryOf(page);
        expect(summary[fr.product]).toBe('Livre BOOK-B4');
        expect(summary[fr.total]).toMatch(/^1\s?550,50\sDA$/);
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'Arabic product page: right to left, with a screenshot',
    async () => {
      await inBrowser(async (page) => {
        await page.goto(productUrl('BOOK-B6', 'ar'));
        expect(await documentLanguage(page)).toEqual({ dir: 'rtl', lang: 'ar' });
        const summary = await summaryOf(page);
        expect(summary[Messages.ar.product]).toBe('Livre BOOK-B6');
        expect(summary).toHaveProperty(Messages.ar.total);

        await mkdir(ARTIFACTS, { recursive: true });
        const screenshot = `${ARTIFACTS}pay-ar.png`;
        await page.screenshot({ path: screenshot, fullPage: true });
        expect((await stat(screenshot)).size).toBeGreaterThan(1_000);
      });
    },
    SCENARIO_TIMEOUT_MS,
  );
});

describe('paying a static QR code in a browser', () => {
  it(
    'one amount is one pay button; several are a choice, and the chosen one is paid',
    async () => {
      await inBrowser(async (page) => {
        const token = await stack!.qrCode(merchant.id);
        await stack!.setQrConfig(merchant.testKey, { token, amounts: [1200], singleUse: false });
        await page.goto(qrUrl(token));
        expect(await text(page, 'h1')).toBe(MERCHANT_NAME);
        const one = page.locator('form button[type="submit"]');
        expect(await one.count()).toBe(1);
        expect(await one.textContent()).toMatch(/1\s?250,00/);
        expect(await page.getByText(fr.chooseAmount).count()).toBe(0);

        await stack!.setQrConfig(merchant.testKey, {
          token,
          amounts: [500, 1000, 1500.5],
          singleUse: false,
        });
        await page.goto(qrUrl(token));
        expect(await page.getByText(fr.chooseAmount).count()).toBe(1);
        const choices = page.locator('form button[type="submit"]');
        expect(await choices.count()).toBe(3);
        expect(await choices.nth(1).textContent()).toMatch(/1\s?050,00/);

        await choices.nth(1).click();
        await page.waitForURL((url) => /^\/checkout\/[A-Za-z0-9_-]{43}$/.test(url.pathname));
        const checkout = await summaryOf(page);
        expect(checkout[fr.amount]).toMatch(/^1\s?000,00\sDA$/);
        expect(checkout[fr.total]).toMatch(/^1\s?050,00\sDA$/);
        await toCardForm(page);
        expect(await payWithCard(page, CARDS.approved)).toBe(fr.success);

        // A multi-use configuration stays.
        await page.goto(qrUrl(token));
        expect(await page.locator('form button[type="submit"]').count()).toBe(3);
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'an expired configuration: nothing to pay',
    async () => {
      await inBrowser(async (page) => {
        const token = await stack!.qrCode(merchant.id);
        await stack!.setQrConfig(merchant.testKey, {
          token,
          amounts: [800],
          expiresAt: new Date(Date.now() + 1_000).toISOString(),
          singleUse: false,
        });
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await page.goto(qrUrl(token));
        expect(await text(page, 'h1')).toBe(fr.nothingToPay);
        expect(await page.locator('button').count()).toBe(0);
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'a single-use configuration: once paid, the code has nothing to pay',
    async () => {
      await inBrowser(async (page) => {
        const token = await stack!.qrCode(merchant.id);
        await stack!.setQrConfig(merchant.testKey, { token, amounts: [750], singleUse: true });
        await page.goto(qrUrl(token));
        await toCheckout(page);
        expect((await summaryOf(page))[fr.total]).toMatch(/^800,00\sDA$/);
        await toCardForm(page);
        expect(await payWithCard(page, CARDS.approved)).toBe(fr.success);

        // qr-config clears it when the success arrives on the PAYMENTS stream.
        await expect
          .poll(
            async () => {
              await page.goto(qrUrl(token));
              return text(page, 'h1');
            },
            { timeout: 10_000, interval: 250 },
          )
          .toBe(fr.nothingToPay);
        expect(await page.locator('button').count()).toBe(0);
      });
    },
    SCENARIO_TIMEOUT_MS,
  );
});

describe('what the services wrote', () => {
  it('never a partner secret, an API key or a card number', () => {
    const logs = stack!.output(10_000_000);
    expect(logs).toContain('request completed');
    expect(logs).not.toContain(PARTNER_SECRET);
    expect(logs).not.toMatch(/pk_test_[A-Za-z0-9_-]{43}/);
    for (const pan of Object.values(CARDS)) expect(logs).not.toContain(pan);
  });
});
