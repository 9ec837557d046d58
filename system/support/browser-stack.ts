import type { Browser } from 'playwright-core';
import { launchChromium } from './browser.ts';
import { startPartnerServer, type PartnerServer } from './partner-server.ts';
import { startProcessStack, type ProcessStack, type ProcessStackOptions } from './process-stack.ts';
import { stopEvery, stopIfOneFailed, valuesOf } from './together.ts';

/** Chromium, every service as its own process, and a partner's server, for browser tests. */
export interface BrowserStack {
  browser: Browser;
  stack: ProcessStack;
  partner: PartnerServer;
  /** Stops all three, even when one fails to stop; throws the first failure. */
  stop(): Promise<void>;
}

/**
 * Starts the three together. When one fails, what did start is stopped before the
 * failure is thrown, so a test's afterAll never has to know what exists.
 */
export async function startBrowserStack(
  label: string,
  options: ProcessStackOptions,
): Promise<BrowserStack> {
  const started = await Promise.allSettled([
    launchChromium(),
    startProcessStack(label, options),
    startPartnerServer(),
  ]);
  const [browser, stack, partner] = valuesOf(started) as [
    Browser | undefined,
    ProcessStack | undefined,
    PartnerServer | undefined,
  ];
  const stop = () => stopEvery([browser?.close(), stack?.stop(), partner?.close()]);
  await stopIfOneFailed(started, stop);
  return { browser: browser!, stack: stack!, partner: partner!, stop };
}
