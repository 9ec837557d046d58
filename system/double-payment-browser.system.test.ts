import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sandboxControl } from '@dzpay/cardnet-sandbox/control';
import { StatusRecord } from '@dzpay/contracts';
import type { Browser, Page } from 'playwright-core';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Messages } from '../services/gateway/src/pages/messages.ts';
import { inContext } from './support/browser.ts';
import { startBrowserStack, type BrowserStack } from './support/browser-stack.ts';
import type { ProcessStack } from './support/process-stack.ts';

/**
 * The double payment an outside tester once made, replayed in a real browser against
 * every service as its own process. Payer 1 pays a product and never comes back (the
 * card form's redirect to dzpay is lost); the payment window closes before the sweeper
 * (which does not run here) has decided the attempt; payer 2 opens the same reference.
 * One success, and payer 2 is told it is already paid. In the race variant, payer 2's
 * attempt opens before payer 1 has paid at all, and payer 1 pays after: one success, and
 * payer 1's charge is refunded.
 */

const WINDOW_MS = 6_000;
const SCENARIO_TIMEOUT_MS = 60_000;
const PARTNER_SECRET = `partner-secret-${randomBytes(12).toString('hex')}`;
const APPROVED = '6280580000000009';
const fr = Messages.fr;

let parts: BrowserStack | undefined;
let browser: Browser | undefined;
let stack: ProcessStack | undefined;
let merchant: { id: string; testKey: string };
let db: postgres.Sql | undefined;

beforeAll(async () => {
  parts = await startBrowserStack('double-payment', {
    qrConfig: true,
    status: true,
    sandbox: { SANDBOX_CONTROL: 'true' },
    // The sweeper is behind: it never runs during these scenarios.
    payments: { PAYMENT_WINDOW_MS: String(WINDOW_MS), SWEEP_INTERVAL_MS: '3600000' },
    gateway: { STATUS_RATE_LIMIT_PER_MINUTE: '10000', RATE_LIMIT_PER_MINUTE: '100000' },
  });
  ({ browser, stack } = parts);
  merchant = await stack.merchant('Librairie du Môle');
  await stack.partnerEndpoint(merchant.id, parts.partner.url, PARTNER_SECRET);
  db = postgres(stack.infra.databaseUrl, { max: 1, onnotice: () => {} });
}, 120_000);

afterAll(async () => {
  await db?.end();
  await parts?.stop();
});

const productUrl = (reference: string) =>
  `${stack!.gatewayUrl}/pay/${merchant.id}/${encodeURIComponent(reference)}?mode=test&lang=fr`;

const text = async (page: Page, selector: string) =>
  ((await page.locator(selector).first().textContent()) ?? '').trim();

async function inBrowser(scenario: (page: Page) => Promise<void>): Promise<void> {
  const services = stack;
  if (!browser || !services) throw new Error('the browser or the services did not start');
  await inContext(browser, scenario, () => services.output());
}

/** From the product page to the card network's form; answers the order id. */
async function toCardForm(page: Page, reference: string): Promise<string> {
  await page.goto(productUrl(reference));
  await page.locator('form button[type="submit"]').first().click();
  await page.waitForURL((url) => url.pathname.startsWith('/checkout/'));
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL((url) => url.pathname === '/payment/merchants/form');
  return new URL(page.url()).searchParams.get('mdOrder')!;
}

async function fillCard(page: Page): Promise<void> {
  await page.fill('#pan', APPROVED);
  await page.fill('#expiry', '12/30');
  await page.fill('#cvv', '123');
  await page.fill('#cardholderName', 'AMINA BELKACEM');
}

async function statusOf(reference: string): Promise<StatusRecord> {
  const response = await fetch(
    `${stack!.gatewayUrl}/partner/payments/v1/${encodeURIComponent(reference)}/status`,
    { headers: { 'x-api-key': merchant.testKey } },
  );
  expect(response.status).toBe(200);
  return StatusRecord.parse(((await response.json()) as { data: unknown }).data);
}

async function attemptsOf(reference: string) {
  return db!<{ id: string; status: string; failure_reason: string | null }[]>`
    select id, status, failure_reason from payments.payments
    where reference = ${reference} order by created_at`;
}

describe('one product reference, two payers', () => {
  it(
    'payer 1 paid and never came back, the window closed unsettled: payer 2 sees "already paid", one success',
    async () => {
      const reference = 'BOOK-TWICE-1';
      let firstPayment = '';
      await inBrowser(async (page) => {
        await toCardForm(page, reference);
        // The card network decides, but its redirect back to dzpay never reaches the
        // payer's browser (a closed tab, a dead phone).
        await page.route('**/payment/merchants/pay', async (route) => {
          await route.fetch({ maxRedirects: 0 });
          await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>lost</p>' });
        });
        await fillCard(page);
        await page.locator('form button[type="submit"]').click();
        await expect.poll(async () => (await attemptsOf(reference)).length).toBe(1);
        firstPayment = (await attemptsOf(reference))[0]!.id;
      });
      // Paid at the card network; still processing at dzpay.
      const orders = await sandboxControl(stack!.sandboxUrl).ledger();
      expect(orders.find((o) => o.udf1 === firstPayment)?.status).toBe(2);
      expect((await attemptsOf(reference)).map((a) => a.status)).toEqual(['processing']);
      expect((await statusOf(reference)).stage).toBe('locked');

      await sleep(WINDOW_MS + 500);
      // Past the window but undecided: still held, without an end.
      expect(await statusOf(reference)).toMatchObject({ stage: 'locked', lockReleaseTime: null });

      await inBrowser(async (page) => {
        await page.goto(productUrl(reference));
        const [response] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST'),
          page.locator('form button[type="submit"]').first().click(),
        ]);
        expect(response.status()).toBe(409);
        expect(await text(page, 'h1')).toBe(fr.alreadyPaid);
      });
      expect((await attemptsOf(reference)).map((a) => [a.id, a.status])).toEqual([
        [firstPayment, 'success'],
      ]);
      await expect
        .poll(async () => (await statusOf(reference)).stage, { timeout: 10_000 })
        .toBe('paid');
      expect((await statusOf(reference)).paymentId).toBe(firstPayment);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'race: payer 2 opens an attempt before payer 1 has paid; payer 1 pays late: one success, payer 1 refunded',
    async () => {
      const reference = 'BOOK-TWICE-2';
      const control = sandboxControl(stack!.sandboxUrl);
      await inBrowser(async (payer1) => {
        const firstOrder = await toCardForm(payer1, reference);
        // The card network will not cancel payer 1's order when dzpay asks.
        await control.setFaults([
          { operation: 'reverse', effect: 'unavailable', orderIds: [firstOrder] },
        ]);
        await sleep(WINDOW_MS + 500);

        // Payer 2 arrives: payer 1's attempt is settled on the spot (never paid, not
        // cancelled: failed, its order watched for money), and payer 2 pays.
        await inBrowser(async (payer2) => {
          await toCardForm(payer2, reference);
          await fillCard(payer2);
          await payer2.locator('form button[type="submit"]').click();
          await payer2.waitForURL((url) => url.pathname.startsWith('/checkout/return/'));
          await expect.poll(() => text(payer2, '[role="status"]')).toBe(fr.success);
        });

        // Payer 1 was still on the card form, and pays now.
        await fillCard(payer1);
        await payer1.locator('form button[type="submit"]').click();
        await payer1.waitForURL((url) => url.pathname.startsWith('/checkout/return/'));
        await expect.poll(() => text(payer1, '[role="status"]')).not.toBe(fr.processing);
        expect(await text(payer1, '[role="status"]')).not.toBe(fr.success);

        const attempts = await attemptsOf(reference);
        expect(attempts.map((a) => [a.status, a.failure_reason])).toEqual([
          ['failed', 'expired'],
          ['success', null],
        ]);
        const orders = await control.ledger();
        const first = orders.find((o) => o.orderId === firstOrder)!;
        expect(first.refunds.map((r) => r.amount)).toEqual([first.amount]);
        const second = orders.find((o) => o.udf1 === attempts[1]!.id)!;
        expect(second).toMatchObject({ status: 2, refundedAmount: 0 });
        await expect
          .poll(async () => (await statusOf(reference)).paymentId, { timeout: 10_000 })
          .toBe(attempts[1]!.id);
        expect((await statusOf(reference)).stage).toBe('paid');
      });
      await control.clearFaults();
    },
    SCENARIO_TIMEOUT_MS,
  );
});
