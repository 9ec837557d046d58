import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { migrationsOf, serviceMigrations } from '../src/migrations.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const relative = (folder: URL) => fileURLToPath(folder).slice(root.length);

describe('the migrations libs/stack finds by convention', () => {
  it('finds each schema once, in the start order of its first service', () => {
    expect(serviceMigrations().map(({ schema, folder }) => [schema, relative(folder)])).toEqual([
      ['qr', 'services/qr-config/migrations/'],
      ['payments', 'services/payments/migrations/'],
      ['status', 'services/status/migrations/'],
      ['webhooks', 'services/webhook-dispatcher/migrations/'],
      ['receipts', 'services/receipts/migrations/'],
      ['accounts', 'libs/accounts/migrations/'],
    ]);
  });

  it('gives the gateway and the dashboard the accounts migrations beside libs/accounts', () => {
    for (const service of ['gateway', 'dashboard'] as const) {
      const { schema, folder, outbox } = migrationsOf(service);
      expect({ schema, folder: relative(folder), outbox }).toEqual({
        schema: 'accounts',
        folder: 'libs/accounts/migrations/',
        outbox: false,
      });
    }
    // Rows of schema_migrations are file names: the files keep the names they were applied by.
    expect(readdirSync(migrationsOf('gateway').folder).sort()[0]).toBe('001_accounts.sql');
  });
});
