import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveriesMessages } from '../services/dashboard/src/webhook-deliveries-messages.ts';
import { documentLanguage, launchChromium } from './support/browser.ts';
import {
  dashboardUser,
  openContext,
  overflowsSideways,
  screenshot,
  seriousViolations,
  signIn,
} from './support/dashboard-browser-support.ts';
import { connectPartner, payProductReference } from './support/partner-merchant.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { CARDS } from './support/payer.ts';
import { startStack, type Stack } from './support/stack.ts';

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

beforeAll(async () => {
  const started = await Promise.allSettled([
    launchChromium(),
    // The partner's server refuses the first webhook, then takes them all.
    startPartnerServer({
      signingSecret: SIGNING_SECRET,
      webhookStatus: (call) => (call === 1 ? 503 : 200),
    }),
    startStack(
      'webhook-deliveries-browser',
      { SECRETS_KEY, DASHBOARD_COOKIE_SECURE: 'false', RATE_LIMIT_PER_MINUTE: '100000' },
      {
        withPayments: true,
        withWebhooks: { SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200' },
        withDashboard: true,
      },
    ),
  ]);
  const [launched, partnerStarted, stackStarted] = started;
  if (launched.status === 'fulfilled') browser = launched.value;
  if (partnerStarted.status === 'fulfilled') partner = partnerStarted.value;
  if (stackStarted.status === 'fulfilled') stack = stackStarted.value;
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;

  const merchant = await stack!.merchant('Librairie d’Annaba', { walletId: 'W-A' });
  await connectPartner(
    stack!,
    merchant.id,
    { url: partner!.url, signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
  await dashboardUser(stack!, merchant.id, EMAIL, PASSWORD);
  await payProductReference(stack!, merchant.id, REFERENCE, CARDS.approved);
  // Delivered after its refusal: two attempts, the second acknowledged.
  const deadline = Date.now() + 15_000;
  while (!partner!.webhooks.some((w) => w.data.reference === REFERENCE)) {
    if (Date.now() > deadline) throw new Error('the webhook never reached the partner');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
  await browser?.close();
});

const base = () => stack!.dashboard!.url;

async function inDashboard(
  options: { phone?: boolean; language: 'ar' | 'fr' },
  scenario: (page: Page) => Promise<void>,
): Promise<void> {
  const context = await openContext(browser!, { ...(options.phone ? { phone: true } : {}) });
  const page = await context.newPage();
  try {
    await signIn(page, base(), EMAIL, PASSWORD);
    await page
      .locator(`form[action="/dashboard/language"] button[value="${options.language}"]`)
      .first()
      .click();
    await page.waitForLoadState();
    await scenario(page);
  } catch (error) {
    if (error instanceof Error) error.message += `\n\nbrowser was at: ${page.url()}`;
    throw error;
  } finally {
    await context.close();
  }
}

const row = (page: Page) => page.locator('table.responsive tbody tr', { hasText: REFERENCE });

describe('the webhook deliveries page in Chromium', () => {
  for (const language of ['ar', 'fr'] as const) {
    for (const device of ['laptop', 'phone'] as const) {
      it(
        `${language} on a ${device}: attempts shown, filter and resend by clicks, axe clean`,
        async () => {
          const text = DeliveriesMessages[language];
          await inDashboard({ language, phone: device === 'phone' }, async (page) => {
            const response = await page.goto(`${base()}${PATH}`);
            expect(response?.status()).toBe(200);
            expect(await documentLanguage(page)).toEqual({
              lang: language,
              dir: language === 'ar' ? 'rtl' : 'ltr',
            });
            expect(await page.locator('h1').textContent()).toBe(text.title);
            await expect.poll(() => row(page).count()).toBe(1);
            const attempts = row(page).locator('ol.attempts li');
            expect(await attempts.count()).toBeGreaterThanOrEqual(2);
            // The code never breaks over two lines (a no-break space).
            expect(await attempts.nth(0).textContent()).toContain('HTTP\u00a0503');
            expect(await attempts.nth(1).textContent()).toContain('HTTP\u00a0200');
            await screenshot(page, `webhook-deliveries-${language}-${device}`);
            const problems: Record<string, unknown> = {};
            const violations = await seriousViolations(page);
            if (violations.length) problems.list = violations;
            if (device === 'phone' && (await overflowsSideways(page)))
              problems['sideways scrolling'] = true;

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
            await screenshot(page, `webhook-deliveries-${language}-${device}-filtered`);

            // Resend: back on the same filtered list, saying so; the partner hears it again.
            const before = partner!.webhooks.filter((w) => w.data.reference === REFERENCE).length;
            await row(page).locator('form[action$="/replay"] button').click();
            await page.waitForURL(/outcome=delivered/);
            expect(((await page.locator('.flash').first().textContent()) ?? '').trim()).toBe(
              text.resent,
            );
            const violationsAfter = await seriousViolations(page);
            if (violationsAfter.length) problems.afterResend = violationsAfter;
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
