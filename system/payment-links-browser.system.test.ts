import type { Language } from '@dzpay/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentLinkPageMessages } from '../services/dashboard/src/pages/payment-link-messages.ts';
import { PaymentLinkMessages } from '../services/gateway/src/pages/payment-link-messages.ts';
import { documentLanguage } from './support/browser.ts';
import {
  checkPage,
  chooseLanguage,
  dashboardUser,
  flashText,
  inDashboard,
  languageAttributes,
  signIn,
} from './support/dashboard-browser-support.ts';
import { startDashboardBrowserStack } from './support/dashboard-browser-stack.ts';
import { CARDS } from './support/payer.ts';
import type { Stack } from './support/stack.ts';

/**
 * A merchant makes a payment link in the dashboard and a payer pays it, in a real
 * Chromium against the real dashboard, gateway, payments and card network sandbox: in
 * Arabic and French, on a laptop and on a 390×844 phone. Every new page (the links list,
 * the form, a link, its deactivation, the payer's page and its refusals) is checked with
 * axe-core (no serious or critical violation) and photographed under test-artifacts/.
 */

const EMAIL = 'owner@atelier.dz';
const PASSWORD = 'correct horse battery staple';
const SCENARIO_TIMEOUT_MS = 120_000;

let browser: Browser | undefined;
let stack: Stack | undefined;
let stopAll: (() => Promise<void>) | undefined;
let merchantId = '';
let testKey = '';

beforeAll(async () => {
  ({
    browser,
    stack,
    stop: stopAll,
  } = await startDashboardBrowserStack('payment-links-browser', {}, { withPayments: true }));
  const merchant = await stack.merchant('Atelier Tassili', { walletId: 'W-1', feeDzd: 50 });
  merchantId = merchant.id;
  testKey = merchant.testKey;
  await dashboardUser(stack, merchantId, EMAIL, PASSWORD);
}, 120_000);

afterAll(() => stopAll?.());

const dashboard = () => stack!.dashboard!.url;

/** Presses pay on the checkout page, then types the card on the sandbox's form. */
async function payWithCard(page: Page): Promise<void> {
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL((url) => url.pathname === '/payment/merchants/form');
  await page.fill('#pan', CARDS.approved.pan);
  await page.fill('#expiry', '12/30');
  await page.fill('#cvv', '123');
  await page.fill('#cardholderName', 'AMINA BELKACEM');
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL((url) => url.pathname.startsWith('/checkout/return/'));
}

const journeys: [Language, boolean][] = [
  ['ar', false],
  ['ar', true],
  ['fr', false],
  ['fr', true],
];

describe('payment links in Chromium', () => {
  for (const [language, phone] of journeys) {
    const device = phone ? 'phone' : 'laptop';
    it(
      `${language} on a ${device}: a merchant makes a link, a payer pays it, the merchant ends it`,
      async () => {
        const t = PaymentLinkPageMessages[language];
        const payerText = PaymentLinkMessages[language];
        const name = `payment-links-${language}-${device}`;
        const problems: Record<string, unknown> = {};
        await inDashboard(browser!, { phone }, async (page) => {
          await signIn(page, dashboard(), EMAIL, PASSWORD);
          await chooseLanguage(page, language);

          // The list, then the form of a new link.
          await page.goto(`${dashboard()}/dashboard/payment-links`);
          expect(await documentLanguage(page)).toEqual(languageAttributes(language));
          await checkPage(page, `${name}-list`, problems, phone);
          await page.locator('a[href="/dashboard/payment-links/new"]').click();
          await page.waitForURL((url) => url.pathname === '/dashboard/payment-links/new');
          await checkPage(page, `${name}-new`, problems, phone);

          // Arabic: the payer chooses between bounds typed the Arabic way; French: a
          // fixed amount with a decimal comma. Single use both times.
          const label = `${language === 'ar' ? 'تبرع' : 'Atelier poterie'} ${device}`;
          await page.fill('#link-label', label);
          if (language === 'ar') {
            await page.locator('input[name="kind"][value="open"]').check();
            await page.fill('#link-minAmount', '1.000,00');
            await page.fill('#link-maxAmount', '5.000,00');
          } else {
            await page.fill('#link-amount', '2 500,50');
          }
          await page.locator('input[name="singleUse"]').check();
          await page
            .locator('form[action="/dashboard/payment-links"] button[type="submit"]')
            .click();
          await page.waitForURL((url) =>
            /^\/dashboard\/payment-links\/[0-9a-f-]{36}$/.test(url.pathname),
          );
          expect(await flashText(page)).toBe(t.created);
          await checkPage(page, `${name}-link`, problems, phone);
          const linkPage = page.url();
          const payerUrl = await page.locator('a[href*="/link/pl_"]').first().getAttribute('href');
          expect(payerUrl?.startsWith(`${stack!.gateway.url}/link/pl_`)).toBe(true);

          // The payer opens the link (in the page's language), and pays through the sandbox.
          await page.goto(`${payerUrl}?lang=${language}`);
          expect((await documentLanguage(page)).dir).toBe(language === 'ar' ? 'rtl' : 'ltr');
          expect(await page.locator('h1').textContent()).toBe('Atelier Tassili');
          await checkPage(page, `${name}-payer`, problems, phone);
          if (language === 'ar') {
            await page.fill('#amount', '1');
            await page.locator('form button[type="submit"]').click();
            // Below the bounds: the browser itself holds the form back…
            expect(await page.locator('#amount:invalid').count()).toBe(1);
            expect(new URL(page.url()).pathname.startsWith('/link/')).toBe(true);
            // …and a browser that does not (the bound taken off) gets the page again, saying why.
            await page.evaluate("document.getElementById('amount').removeAttribute('min')");
            await page.locator('form button[type="submit"]').click();
            await page.locator('#amount-error').waitFor();
            expect(await page.locator('#amount-error').textContent()).toContain('أدخل مبلغًا');
            await checkPage(page, `${name}-payer-refused`, problems, phone);
            await page.fill('#amount', '1500.5');
          }
          await page.locator('form button[type="submit"]').click();
          await page.waitForURL((url) => url.pathname.startsWith('/checkout/'));
          await payWithCard(page);
          expect(await page.locator('.status.success').count()).toBe(1);

          // The merchant sees it paid, under the link; the link is used up.
          await page.goto(linkPage);
          const paid = page.locator('section[aria-labelledby="payments"] tbody tr');
          // Waited for as long as the browser waits for anything (not a poll's 1 s, which a busy
          // machine outruns), then counted.
          await paid.first().waitFor();
          expect(await paid.count()).toBe(1);
          const id = new URL(linkPage).pathname.split('/').at(-1)!;
          const api = await stack!.get(`/api/v1/payments?paymentLinkId=${id}`, {
            'x-api-key': testKey,
          });
          const listed = (
            (await api.json()) as { data: { payments: { amount: number; status: string }[] } }
          ).data.payments;
          expect(listed).toMatchObject([
            { status: 'success', amount: language === 'ar' ? 150_050 : 250_050 },
          ]);
          await page.goto(`${payerUrl}?lang=${language}`);
          expect(await page.locator('h1').textContent()).toBe(payerText.used);
          await checkPage(page, `${name}-payer-used`, problems, phone);

          // Deactivating needs its confirmation.
          await page.goto(linkPage);
          await page.locator(`a[href$="/deactivate"]`).click();
          await page.waitForURL((url) => url.pathname.endsWith('/deactivate'));
          await checkPage(page, `${name}-deactivate`, problems, phone);
          await page.locator('form[action$="/deactivate"] button[type="submit"]').click();
          await page.waitForURL((url) => url.href === linkPage);
          expect(await flashText(page)).toBe(t.deactivated);
          await page.goto(`${payerUrl}?lang=${language}`);
          expect(await page.locator('h1').textContent()).toBe(payerText.deactivated);
          await checkPage(page, `${name}-payer-deactivated`, problems, phone);
        });
        expect(problems).toEqual({});
      },
      SCENARIO_TIMEOUT_MS,
    );
  }
});
