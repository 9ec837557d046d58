import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium, headless, without the background traffic this closed network refuses. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * Runs a scenario in a fresh browser context. A failure says where the browser was and
 * what the services wrote, which is what one needs to read a failed system test.
 */
export async function inContext(
  browser: Browser,
  scenario: (page: Page) => Promise<void>,
  servicesOutput: () => string,
): Promise<void> {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  try {
    await scenario(page);
  } catch (error) {
    if (error instanceof Error)
      error.message += `\n\nbrowser was at: ${page.url()}\n\n${servicesOutput()}`;
    throw error;
  } finally {
    await context.close();
  }
}

/** A page's summary (its dl), label → value. */
export async function summaryOf(page: Page): Promise<Record<string, string | undefined>> {
  const labels = await page.locator('dl dt').allTextContents();
  const values = await page.locator('dl dd').allTextContents();
  return Object.fromEntries(labels.map((label, i) => [label.trim(), values[i]?.trim()]));
}

/** What the page's root element says of its language and direction. */
export const documentLanguage = (page: Page) =>
  page.evaluate<{ dir: string; lang: string }>(
    '({ dir: document.documentElement.dir, lang: document.documentElement.lang })',
  );
