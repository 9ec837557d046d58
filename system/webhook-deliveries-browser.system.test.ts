import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveriesMessages } from '../services/dashboard/src/pages/webhook-deliveries-messages.ts';
import { documentLanguage } from './support/browser.ts';
import {
  checkPage,
  chooseLanguage,
  dashboardUser,
  flashText,
  inDashboard,
  languageAttributes,
  screenshot,
  signIn,
} from './support/dashboard-browser-support.ts';
import { startDashboardBrowserStack } from './support/dashboard-browser-stack.ts';
import { connectPartner, payProductReference } from './support/partner-merchant.ts';
import type { PartnerServer } from './support/partner-server.ts';
import { CARDS } from './support/payer.ts';
import type { Stack } from './support/stack.ts';

/**
 * The page of every webhook delivery in a real Chromium, in Arabic and French, on a
 * laptop and on a 390×844 phone: a webhook the partner refused once then took shows its
 * two attempts; filtering by outcome and resending work by clicks; right to left in
 * Arabic; no sideways scrolling on the phone; axe-core finds no serious violation;
 * screenshots under test-artifacts/.
 */

const SECRETS_KEY = randomBytes(32).toString('base64');
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const EMAIL = 'dev@librairie-annaba.dz';
const PASSWORD = 'correct horse battery staple';
const REFERENCE = 'BOOK-HOOK-1';
const SCENARIO_TIMEOUT_MS = 120_000;
const PATH = '/dashboard/webhooks/deliveries';

let browser: Browser | undefined;
let stack: Stack | undefined;
let partner: PartnerServer | undefined;
let stopAll: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({
    browser,
    stack,
    partner,
    stop: stopAll,
  } = await startDashboardBrowserStack(
    'webhook-deliveries-browser',
    { SECRETS_KEY },
    {
      withPayments: true,
      withWebhooks: { SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200' },
      // The partner's server refuses the first webhook, then takes them all.
      partner: { signingSecret: SIGNING_SECRET, webhookStatus: (call) => (call === 1 ? 503 : 200) },
    },
  ));

  const merchant = await stack.merchant('Librairie d’Annaba', { walletId: 'W-A' });
  await connectPartner(
    stack,
    merchant.id,
    { url: partner!.url, signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
  await dashboardUser(stack, merchant.id, EMAIL, PASSWORD);
  await payProductReference(stack, merchant.id, REFERENCE, CARDS.approved);
  // Delivered after its refusal: two attempts, the second acknowledged.
  const deadline = Date.now() + 15_000;
  while (!partner!.webhooks.some((w) => w.data.reference === REFERENCE)) {
    if (Date.now() > deadline) throw new Error('the webhook never reached the partner');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 120_000);
afterAll(() => stopAll?.());

const base = () => stack!.dashboard!.url;

/** A fresh context signed in, the dashboard in `language`. */
const signedIn = (
  options: { phone?: boolean; language: 'ar' | 'fr' },
  scenario: (page: Page) => Promise<void>,
) =>
  inDashboard(browser!, options.phone ? { phone: true } : {}, async (page) => {
    await signIn(page, base(), EMAIL, PASSWORD);
    await chooseLanguage(page, options.language);
    await scenario(page);
  });

const row = (page: Page) => page.locator('table.responsive tbody tr', { hasText: REFERENCE });

describe('the webhook deliveries page in Chromium', () => {
  for (const language of ['ar', 'fr'] as const) {
    for (const device of ['laptop', 'phone'] as const) {
      it(
        `${language} on a ${device}: attempts shown, filter and resend by clicks, axe clean`,
        async () => {
          const text = DeliveriesMessages[language];
          await signedIn({ language, phone: device === 'phone' }, async (page) => {
            const response = await page.goto(`${base()}${PATH}`);
            expect(response?.status()).toBe(200);
            expect(await documentLanguage(page)).toEqual(languageAttributes(language));
            expect(await page.locator('h1').textContent()).toBe(text.title);
            // Waited for as long as the browser waits for anything (not a poll's 1 s, which a busy
            // machine outruns), then counted.
            await row(page).first().waitFor();
            expect(await row(page).count()).toBe(1);
            const attempts = row(page).locator('ol.attempts li');
            expect(await attempts.count()).toBeGreaterThanOrEqual(2);
            // The code never breaks over two lines (a no-break space).
            expect(await attempts.nth(0).textContent()).toContain('HTTP\u00a0503');
            expect(await attempts.nth(1).textContent()).toContain('HTTP\u00a0200');
            const name = `webhook-deliveries-${language}-${device}`;
            const problems: Record<string, unknown> = {};
            await checkPage(page, name, problems, device === 'phone');

            // Filter by clicks: given up hides it, delivered shows it.
            const filters = page.locator('details.filters');
            if ((await filters.getAttribute('open')) === null)
              await filters.locator('summary').click();
            await page.selectOption('#d-outcome', 'given_up');
            await page.locator('form[role="search"] button[type="submit"]').click();
            await page.waitForURL(/outcome=given_up/);
            expect(await row(page).count()).toBe(0);
            expect(await page.locator('p.empty').textContent()).toBe(text.none);
            await page.selectOption('#d-outcome', 'delivered');
            await page.locator('form[role="search"] button[type="submit"]').click();
            await page.waitForURL(/outcome=delivered/);
            expect(await row(page).count()).toBe(1);
            await screenshot(page, `${name}-filtered`);

            // Resend: back on the same filtered list, saying so; the partner hears it again.
            const before = partner!.webhooks.filter((w) => w.data.reference === REFERENCE).length;
            await row(page).locator('form[action$="/replay"] button').click();
            await page.waitForURL(/outcome=delivered/);
            expect(await flashText(page)).toBe(text.resent);
            await checkPage(page, `${name}-resent`, problems, device === 'phone');
            expect(problems).toEqual({});
            await expect
              .poll(() => partner!.webhooks.filter((w) => w.data.reference === REFERENCE).length, {
                timeout: 15_000,
              })
              .toBe(before + 1);
          });
        },
        SCENARIO_TIMEOUT_MS,
      );
    }
  }
});
