import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// Tests are named by level. Unit tests (*.unit) are pure and fast; service tests
// (*.service) start one service or library against the real Postgres, Redis and NATS of
// this machine (or testcontainers), each file in its own database and prefixes; system
// tests (system/*.system) run the whole stack, the browser ones in a Chromium; the
// campaign (*.campaign) runs every service as a process under faults.
const BROWSER_TESTS = 'system/**/*-browser.system.test.ts';

export default defineConfig({
  test: {
    reporters: ['default', './libs/testkit/src/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'libs/*/test/**/*.unit.test.ts',
            'services/*/test/**/*.unit.test.ts',
            'tools/*/test/**/*.unit.test.ts',
            'system/**/*.unit.test.ts',
            'campaign/test/**/*.unit.test.ts',
            'deploy/test/**/*.unit.test.ts',
            'docs/test/**/*.unit.test.ts',
          ],
        },
      },
      {
        // The fault campaign runs alone, after the others (package.json "test"): it starts
        // a whole system of processes and must not share two cores with other tests.
        test: {
          name: 'campaign',
          include: ['campaign/test/**/*.campaign.test.ts'],
          testTimeout: 120_000,
          globalSetup: [
            fileURLToPath(new URL('./libs/testkit/src/global-setup.ts', import.meta.url)),
          ],
        },
      },
      {
        test: {
          name: 'service',
          include: [
            'libs/*/test/**/*.service.test.ts',
            'services/*/test/**/*.service.test.ts',
            'tools/*/test/**/*.service.test.ts',
            'deploy/test/**/*.service.test.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: [
            fileURLToPath(new URL('./libs/testkit/src/global-setup.ts', import.meta.url)),
          ],
        },
      },
      {
        test: {
          name: 'system',
          include: ['system/**/*.system.test.ts'],
          exclude: [...configDefaults.exclude, BROWSER_TESTS],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: [
            fileURLToPath(new URL('./libs/testkit/src/global-setup.ts', import.meta.url)),
          ],
        },
      },
      {
        // Each browser test starts a whole stack of processes and a Chromium: run beside
        // the service tests on two cores, the payer's lookups and redirects starved past
        // their timeouts. They run after them, two at a time (package.json "test").
        test: {
          name: 'browser',
          include: [BROWSER_TESTS],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: [
            fileURLToPath(new URL('./libs/testkit/src/global-setup.ts', import.meta.url)),
          ],
        },
      },
    ],
  },
});
