import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Unit tests are pure and fast; service tests talk to the real Postgres, Redis and
// NATS of this machine (or testcontainers), each file in its own database and prefixes.
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
