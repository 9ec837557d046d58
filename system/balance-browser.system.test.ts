import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { algiersMonth } from '@dzpay/contracts';
import { runAdminCli } from '@dzpay/testkit/processes';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BalanceMessages } from '../services/dashboard/src/pages/balance-messages.ts';
import { money } from '../services/dashboard/src/pages/format.ts';
import { documentLanguage } from './support/browser.ts';
import {
  checkPage,
  chooseLanguage,
  dashboardUser,
  inDashboard,
  languageAttributes,
  signIn,
} from './support/dashboard-browser-support.ts';
import { startDashboardBrowserStack } from './support/dashboard-browser-stack.ts';
import { CARDS, payByHttp } from './support/payer.ts';
import { payoutRecordArgs } from './support/payout-record.ts';
import type { Stack } from './support/stack.ts';

/**
 * The balance page in a real Chromium: a merchant paid twice, refunded part of one, and
 * paid out by an operator (the admin CLI) reads its balance, the day's row, the payout
 * and downloads the month's statements, in Arabic and French, on a laptop and a
 * 390×844 phone; axe-core finds no serious violation; screenshots in test-artifacts/.
 */

const SECRETS_KEY = randomBytes(32).toString('base64');
const EMAIL = 'owner@librairie-balance.dz';
const PASSWORD = 'correct horse battery staple';
const SCENARIO_TIMEOUT_MS = 120_000;

let browser: Browser | undefined;
let stack: Stack | undefined;
let stopAll: (() => Promise<void>) | undefined;
let merchant: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  ({
    browser,
    stack,
    stop: stopAll,
  } = await startDashboardBrowserStack('balance-browser', { SECRETS_KEY }, { withPayments: true }));

  merchant = await stack.merchant('Librairie du Môle', { walletId: 'W-MOLE', feeDzd: 15 });
  await dashboardUser(stack, merchant.id, EMAIL, PASSWORD);
  const client = stack.client(merchant.testKey);
  const ids: string[] = [];
  for (const amount of [150_000, 200_050]) {
    const payment = await client.registerPayment({
      amount,
      currency: 'DZD',
      reference: `BAL-UI-${amount}-${Date.now()}`,
    });
    await payByHttp(payment.checkoutUrl, CARDS.approved);
    ids.push(payment.id);
  }
  await client.refundPayment(ids[0]!, { amount: 50_000 });
  await runAdminCli({ ...stack.infra.env }, [
    ...payoutRecordArgs(merchant.id, {
      amount: '1000.25',
      wallet: 'W-MOLE',
      reference: 'BNA-UI-0001',
    }),
    '--operator',
    'amina',
  ]);
}, 120_000);

afterAll(() => stopAll?.());

const base = () => stack!.dashboard!.url;

/** 3 530,50 DZD collected − 30 fees − 500 refunded − 1 000,25 paid out. */
const BALANCE = 200_025;

describe('the balance page', () => {
  for (const language of ['ar', 'fr'] as const) {
    for (const device of ['laptop', 'phone'] as const) {
      it(
        `in ${language} on a ${device}: figures, days, payouts, statements; no serious axe violation`,
        async () => {
          const t = BalanceMessages[language];
          await inDashboard(browser!, { phone: device === 'phone' }, async (page) => {
            await signIn(page, base(), EMAIL, PASSWORD);
            await chooseLanguage(page, language);
            const response = await page.goto(`${base()}/dashboard/balance`);
            expect(response?.status()).toBe(200);
            expect(await documentLanguage(page)).toEqual(languageAttributes(language));
            const now = page.locator('section[aria-labelledby="balance-now"]');
            await expect.poll(() => now.textContent()).toContain(money(BALANCE, language));
            expect(await now.textContent()).toContain(money(353_050, language));
            expect(await now.textContent()).toContain(t.available);
            const payouts = page.locator('section[aria-labelledby="payouts"]');
            expect(await payouts.textContent()).toContain('BNA-UI-0001');
            expect(await payouts.textContent()).toContain(money(100_025, language));
            // Today's row, then the range's total closing on the balance.
            const days = page.locator('section[aria-labelledby="by-day"] tbody tr');
            expect(await days.count()).toBe(2);
            expect(await days.last().textContent()).toContain(money(BALANCE, language));
            const problems: Record<string, unknown> = {};
            await checkPage(page, `balance-${language}-${device}`, problems, device === 'phone');
            expect(problems).toEqual({});
          });
        },
        SCENARIO_TIMEOUT_MS,
      );
    }
  }

  it(
    'downloads this month’s statement as PDF, CSV and XLSX from the page',
    async () => {
      await inDashboard(browser!, {}, async (page) => {
        await signIn(page, base(), EMAIL, PASSWORD);
        await page.goto(`${base()}/dashboard/balance`);
        const month = algiersMonth(new Date());
        const starts: Record<string, (bytes: Buffer) => boolean> = {
          pdf: (bytes) => bytes.subarray(0, 5).toString() === '%PDF-',
          csv: (bytes) => bytes.toString('utf8').startsWith('\uFEFFday;payment_count;'),
          xlsx: (bytes) => bytes.subarray(0, 2).toString() === 'PK',
        };
        for (const format of ['pdf', 'csv', 'xlsx']) {
          const link = page.locator(
            `a[href="/dashboard/balance/statement?month=${month}&format=${format}"]`,
          );
          const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
          expect(download.suggestedFilename()).toBe(`statement-test-${month}.${format}`);
          const bytes = await readFile(await download.path());
          expect(starts[format]!(bytes), format).toBe(true);
        }
        const csv = await page.request.get(
          `${base()}/dashboard/balance/statement?month=${month}&format=csv`,
        );
        expect((await csv.text()).trimEnd().split('\r\n').at(-1)).toBe(
          'total;2;3530,50;30,00;1;500,00;3000,50;1;1000,25;2000,25',
        );
        // A month to come is refused, in words.
        const future = await page.request.get(
          `${base()}/dashboard/balance/statement?month=2999-01&format=pdf`,
        );
        expect(future.status()).toBe(400);
      });
    },
    SCENARIO_TIMEOUT_MS,
  );
});
