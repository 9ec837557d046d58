import type { Browser } from 'playwright-core';
import { launchChromium } from './browser.ts';
import { startPartnerServer, type PartnerServer } from './partner-server.ts';
import { startStack, type Stack } from './stack.ts';
import { stopEvery, stopIfOneFailed, valuesOf } from './together.ts';

/** Chromium and the in-process stack with the dashboard (and a partner's server when asked). */
export interface DashboardBrowserStack {
  browser: Browser;
  stack: Stack;
  /** The partner's server, when one was asked for. */
  partner: PartnerServer | undefined;
  /** Stops them all, even when one fails to stop; throws the first failure. */
  stop: () => Promise<void>;
}

/**
 * Starts them together. When one fails, what did start is stopped before the failure is
 * thrown, so a test's afterAll never has to know what exists.
 */
export async function startDashboardBrowserStack(
  label: string,
  env: Record<string, string>,
  options: Parameters<typeof startStack>[2] & {
    /** Start a partner's server too, with these options. */
    partner?: Parameters<typeof startPartnerServer>[0];
  } = {},
): Promise<DashboardBrowserStack> {
  const { partner: partnerOptions, ...stackOptions } = options;
  const started = await Promise.allSettled([
    launchChromium(),
    startStack(
      label,
      { DASHBOARD_COOKIE_SECURE: 'false', RATE_LIMIT_PER_MINUTE: '100000', ...env },
      { withDashboard: true, ...stackOptions },
    ),
    partnerOptions ? startPartnerServer(partnerOptions) : Promise.resolve(undefined),
  ]);
  const [browser, stack, partner] = valuesOf(started) as [
    Browser | undefined,
    Stack | undefined,
    PartnerServer | undefined,
  ];
  const stop = () => stopEvery([browser?.close(), stack?.stop(), partner?.close()]);
  await stopIfOneFailed(started, stop);
  return { browser: browser!, stack: stack!, partner, stop };
}
