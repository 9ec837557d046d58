import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// Unit tests are pure and fast; service tests talk to the real Postgres, Redis and
// NATS of this machine (or testcontainers), each file in its own database and prefixes.
const BROWSER_TESTS = 'system/**/*-browser.service.test.ts';

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
            'system/**/*.unit.test.ts',
            'campaign/test/**/*.unit.test.ts',
          ],
        },
      },
      {
        // The fault campaign runs alone, after the others (package.json "test"): it starts
        // a whole system of processes and must not share two cores with other tests.
        test: {
          name: 'campaign',
          include: ['campaign/test/**/*.system.test.ts'],
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
            'system/**/*.service.test.ts',
          ],
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
