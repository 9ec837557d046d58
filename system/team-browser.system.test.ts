import { algiersDay, type Language, type PaymentView } from '@dzpay/contracts';
import type ExcelJS from 'exceljs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditMessages } from '../services/dashboard/src/pages/audit-messages.ts';
import { DashboardMessages } from '../services/dashboard/src/messages.ts';
import { TeamMessages } from '../services/dashboard/src/pages/team-messages.ts';
import { documentLanguage } from './support/browser.ts';
import {
  checkPage,
  dashboardUser,
  flashText,
  openContext,
  signIn,
} from './support/dashboard-browser-support.ts';
import { invitationPathFor } from './support/dashboard-agent.ts';
import { startDashboardBrowserStack } from './support/dashboard-browser-stack.ts';
import { paidPayment } from './support/paid-payment.ts';
import type { Stack } from './support/stack.ts';
import { workbookOf } from './support/workbooks.ts';

/**
 * A team in Chromium, in Arabic and French, on a laptop and a 390×844 phone: the owner
 * invites an accountant, the accountant joins, opens a paid payment and finds no refund
 * form (and a 403 page for the API keys), the owner disables them and they are signed out
 * at once. axe-core on every new page; screenshots under test-artifacts/.
 */

const PASSWORD = 'correct horse battery staple';
const OWNER = 'owner@equipe.dz';
const SCENARIO_TIMEOUT_MS = 120_000;

let browser: Browser | undefined;
let stack: Stack | undefined;
let stopAll: (() => Promise<void>) | undefined;
let merchant: Awaited<ReturnType<Stack['merchant']>>;
let paid: PaymentView;

beforeAll(async () => {
  ({
    browser,
    stack,
    stop: stopAll,
  } = await startDashboardBrowserStack('team-browser', {}, { withPayments: true }));
  merchant = await stack.merchant('Librairie de l’Équipe');
  await dashboardUser(stack, merchant.id, OWNER, PASSWORD);
  paid = await paidPayment(stack, merchant.testKey, {
    amount: 420_000,
    reference: `TEAM-${Date.now()}`,
  });
  expect(paid.status).toBe('success');
}, 120_000);

afterAll(() => stopAll?.());

const base = () => stack!.dashboard!.url;

const LOCALES: Record<Language, string> = { ar: 'ar-DZ', fr: 'fr-FR', en: 'en-GB' };

describe('a team in Chromium', () => {
  for (const language of ['ar', 'fr'] as const) {
    for (const phone of [false, true]) {
      const device = phone ? 'phone' : 'laptop';
      it(
        `${language}, ${device}: invite an accountant, who joins, cannot refund, and is disabled`,
        async () => {
          const t = DashboardMessages[language];
          const tt = TeamMessages[language];
          const accountant = `compta-${language}-${device}@equipe.dz`;
          const problems: Record<string, unknown> = {};
          const ownerContext = await openContext(browser!, { phone, locale: LOCALES[language] });
          const mateContext = await openContext(browser!, { phone, locale: LOCALES[language] });
          const owner = await ownerContext.newPage();
          const mate = await mateContext.newPage();
          try {
            // The owner invites, choosing the role.
            await signIn(owner, base(), OWNER, PASSWORD);
            await owner.goto(`${base()}/dashboard/team`);
            expect(await documentLanguage(owner)).toMatchObject({ lang: language });
            await owner.fill('#invite-email', accountant);
            await owner.selectOption('#invite-role', 'accountant');
            await owner
              .locator('form[action="/dashboard/team/invite"] button[type="submit"]')
              .click();
            // Emailed to the accountant, never shown on the owner's page.
            expect(await flashText(owner)).toContain(t.inviteSent);
            const path = invitationPathFor(stack!, accountant)!;
            expect(path).toContain(`/dashboard/invite/`);
            expect(path).toContain(`lang=${language}`);
            expect(await owner.content()).not.toContain(path.split('?')[0]!);
            expect(await owner.locator('#pending').count()).toBe(1);
            expect(await owner.locator(`tr:has-text("${accountant}")`).count()).toBe(1);
            await checkPage(owner, `team-invite-${language}-${device}`, problems, phone);

            // The accountant joins and signs in.
            await mate.goto(`${base()}${path}`);
            await mate.fill('#password', 'a long enough passphrase');
            await Promise.all([
              mate.waitForURL((url) => url.pathname === '/dashboard/login'),
              mate.locator('form button[type="submit"]').click(),
            ]);
            await signIn(mate, base(), accountant, 'a long enough passphrase');

            // A paid payment: shown, with no refund, cancel or receipt form.
            await mate.goto(`${base()}/dashboard/payments/${paid.id}`);
            expect(await mate.locator('h1').textContent()).toContain(paid.reference);
            expect(await mate.locator('form.refund').count()).toBe(0);
            expect(await mate.locator('form[action$="/refund/confirm"]').count()).toBe(0);
            expect(await mate.locator('#refund-amount').count()).toBe(0);
            // Nor any way to the pages of keys and webhooks.
            expect(await mate.locator('nav.main a[href="/dashboard/api-keys"]').count()).toBe(0);
            expect(await mate.locator('nav.main a[href="/dashboard/audit"]').count()).toBe(1);
            await checkPage(mate, `team-accountant-payment-${language}-${device}`, problems, phone);

            // The month's payments as XLSX, as an accountant exports them: the list of this
            // Algiers month, its workbook link, the paid payment in the file.
            const today = algiersDay(new Date());
            await mate.goto(
              `${base()}/dashboard/payments?createdFrom=${today.slice(0, 8)}01&createdTo=${today}`,
            );
            const [workbook] = await Promise.all([
              mate.waitForEvent('download'),
              mate.locator('a[href*="format=xlsx"]').first().click(),
            ]);
            expect(workbook.suggestedFilename()).toMatch(/\.xlsx$/);
            const sheet = await firstSheet(await workbook.path());
            expect(JSON.stringify(sheet.getSheetValues())).toContain(paid.reference);
            // And the month's statement, from the balance page.
            await mate.goto(`${base()}/dashboard/balance`);
            const [statement] = await Promise.all([
              mate.waitForEvent('download'),
              mate.locator('a[href*="format=xlsx"]').first().click(),
            ]);
            expect(statement.suggestedFilename()).toMatch(/\.xlsx$/);
            expect((await firstSheet(await statement.path())).name).toBeTruthy();

            // A page they may not open, typed in: a 403 page in their language.
            const refused = await mate.goto(`${base()}/dashboard/api-keys`);
            expect(refused?.status()).toBe(403);
            expect(await mate.locator('h1').textContent()).toBe(t.forbiddenTitle);
            await checkPage(mate, `team-forbidden-${language}-${device}`, problems, phone);

            // The activity log they may read: the invitation that brought them in.
            await mate.goto(`${base()}/dashboard/audit`);
            expect(await mate.locator('h1').textContent()).toBe(AuditMessages[language].title);
            expect(await mate.locator(`td:has-text("${accountant}")`).count()).toBeGreaterThan(0);
            await checkPage(mate, `team-audit-${language}-${device}`, problems, phone);

            // The owner disables them: their next click is the sign-in page.
            await owner.goto(`${base()}/dashboard/team`);
            await owner
              .locator(
                `tr:has-text("${accountant}") form[action$="/disable"] button[type="submit"]`,
              )
              .click();
            await owner.waitForURL((url) => url.pathname === '/dashboard/team');
            expect(await flashText(owner)).toBe(tt.userDisabled(accountant));
            expect(await owner.locator(`tr:has-text("${accountant}") .badge.bad`).count()).toBe(1);
            await checkPage(owner, `team-disabled-${language}-${device}`, problems, phone);
            await mate.goto(`${base()}/dashboard/payments`);
            expect(new URL(mate.url()).pathname).toBe('/dashboard/login');
            expect(problems).toEqual({});
          } finally {
            await ownerContext.close();
            await mateContext.close();
          }
        },
        SCENARIO_TIMEOUT_MS,
      );
    }
  }
});

/** The first sheet of a downloaded workbook. */
async function firstSheet(path: string): Promise<ExcelJS.Worksheet> {
  const sheet = (await workbookOf(path)).worksheets[0];
  if (!sheet) throw new Error(`no sheet in ${path}`);
  return sheet;
}
