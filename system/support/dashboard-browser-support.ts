import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import jsQRModule from 'jsqr';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { hashPassword, dashboardUsers } from '@dzpay/accounts';
import type { Language } from '@dzpay/contracts';
import type { Stack } from './stack.ts';

/** Test support for the dashboard's browser test: users, sign-in, axe, QR decoding. */

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

/** A dashboard user of the merchant, as an owner made with the adapter the CLI uses. */
export async function dashboardUser(
  stack: Stack,
  merchantId: string,
  email: string,
  password: string,
): Promise<void> {
  const created = await dashboardUsers(stack.gateway.runtime.sql).create(
    merchantId,
    email,
    await hashPassword(password),
  );
  if ('problem' in created && created.problem)
    throw new Error(`user not created: ${created.problem}`);
}

/** A browser context as a phone (or a desktop) would open the dashboard. */
export async function openContext(
  browser: Browser,
  options: { phone?: boolean; locale?: string } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    locale: options.locale ?? 'en-GB',
    acceptDownloads: true,
    ...(options.phone
      ? {
          viewport: { width: 390, height: 844 },
          isMobile: true,
          hasTouch: true,
          deviceScaleFactor: 2,
        }
      : {}),
  });
  context.setDefaultTimeout(15_000);
  return context;
}

export async function signIn(page: Page, baseUrl: string, email: string, password: string) {
  await page.goto(`${baseUrl}/dashboard/login`);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await Promise.all([
    page.waitForURL((url) => !url.pathname.startsWith('/dashboard/login')),
    page.locator('form[action="/dashboard/login"] button[type="submit"]').click(),
  ]);
}

/**
 * Runs a scenario in a fresh context opened as `openContext` does; a failure says where
 * the browser was.
 */
export async function inDashboard(
  browser: Browser,
  options: Parameters<typeof openContext>[1],
  scenario: (page: Page) => Promise<void>,
): Promise<void> {
  const context = await openContext(browser, options);
  const page = await context.newPage();
  try {
    await scenario(page);
  } catch (error) {
    if (error instanceof Error) error.message += `\n\nbrowser was at: ${page.url()}`;
    throw error;
  } finally {
    await context.close();
  }
}

/** Switches the signed-in dashboard to `language` with its language form. */
export async function chooseLanguage(page: Page, language: Language): Promise<void> {
  await page
    .locator(`form[action="/dashboard/language"] button[value="${language}"]`)
    .first()
    .click();
  await page.waitForLoadState();
}

/** What the page's root element must say in `language`: Arabic right to left. */
export const languageAttributes = (language: Language) => ({
  lang: language,
  dir: language === 'ar' ? 'rtl' : 'ltr',
});

/** The page's first flash message. */
export const flashText = async (page: Page) =>
  ((await page.locator('.flash').first().textContent()) ?? '').trim();

/** A violation axe rates serious or critical: what the page must never have. */
export interface SeriousViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core in the page. The dashboard forbids every script (CSP default-src
 * 'none'), so axe is evaluated through the DevTools protocol, as an extension would be,
 * not as a <script> of the page.
 */
export async function seriousViolations(page: Page): Promise<SeriousViolation[]> {
  await page.evaluate(`${axe.source};0`);
  const results = await page.evaluate<{ violations: axe.Result[] }>(
    '(async () => { const r = await axe.run(document, { resultTypes: ["violations"] }); return { violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })) }; })()',
  );
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact ?? '',
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
}

// jsqr is CommonJS typed as an ES default export: under Node's interop the default
// import is module.exports, whose `default` is the function.
const jsQR = jsQRModule.default;

/** A QR code's PNG read back to its text, as a payer's phone would. */
export function decodeQrPng(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const path = `${ARTIFACTS}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Whether the page is wider than the phone's screen (it would scroll sideways). Measured
 * against the screen, not the window: a mobile browser widens its layout viewport to
 * fit wide content, so the window's width would grow along.
 */
export const overflowsSideways = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth > screen.width + 1');

/** How far down the screen the header and the navigation reach, in CSS pixels. */
export const chromeHeight = (page: Page) =>
  page.evaluate<number>(
    "document.querySelector('nav.main').getBoundingClientRect().bottom + window.scrollY",
  );

/**
 * A screenshot, axe and, on a phone, the page's width: what every new page must pass.
 * What it fails is added to `problems` under its name, for one assertion at the end.
 */
export async function checkPage(
  page: Page,
  name: string,
  problems: Record<string, unknown>,
  phone: boolean,
): Promise<void> {
  await screenshot(page, name);
  const violations = await seriousViolations(page);
  if (violations.length) problems[name] = violations;
  if (phone && (await overflowsSideways(page))) problems[`${name} (sideways scrolling)`] = true;
}
