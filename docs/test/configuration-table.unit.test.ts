import { readFileSync } from 'node:fs';
import { BaseEnv } from '@dzpay/platform';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SandboxEnv } from '../../services/cardnet-sandbox/src/config.ts';
import { DashboardEnv } from '../../services/dashboard/src/config.ts';
import { GatewayEnv } from '../../services/gateway/src/config.ts';
import { PaymentsEnv } from '../../services/payments/src/config.ts';
import { QrConfigEnv } from '../../services/qr-config/src/config.ts';
import { ReceiptsEnv } from '../../services/receipts/src/config.ts';
import { StatusEnv } from '../../services/status/src/config.ts';
import { DispatcherEnv } from '../../services/webhook-dispatcher/src/config.ts';
import { tablesStartingWith } from './markdown-tables.ts';

// README.md's configuration table against the zod schemas the services read their
// environment with: every variable a schema declares has a row, no row names a variable
// no schema reads, and a row giving one default gives the schema's.

const SCHEMAS: Record<string, z.ZodObject> = {
  all: BaseEnv,
  'cardnet-sandbox': SandboxEnv,
  dashboard: DashboardEnv,
  gateway: GatewayEnv,
  payments: PaymentsEnv,
  'qr-config': QrConfigEnv,
  receipts: ReceiptsEnv,
  status: StatusEnv,
  'webhook-dispatcher': DispatcherEnv,
};

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

interface Row {
  variables: string[];
  defaultCell: string;
}

/**
 * The variables a cell names: each code span, `_PASSWORD` after `CARDNET_TEST_USERNAME`
 * being `CARDNET_TEST_PASSWORD` (the row's shorthand for a pair).
 */
function variablesOf(cell: string): string[] {
  const names: string[] = [];
  for (const [, span = ''] of cell.matchAll(/`([^`]+)`/g)) {
    const previous = names.at(-1);
    if (span.startsWith('_') && previous) {
      names.push(previous.replace(/_[A-Z]+$/, span));
    } else if (/^[A-Z][A-Z0-9_]*$/.test(span)) {
      names.push(span);
    }
  }
  return names;
}

function rows(): Row[] {
  const [table, ...others] = tablesStartingWith(readme, 'variable');
  expect(table, 'README.md has a table whose first column is "variable"').toBeDefined();
  expect(others, 'README.md has one configuration table').toEqual([]);
  return table!.rows.map((cells) => ({
    variables: variablesOf(cells[0] ?? ''),
    defaultCell: cells[1] ?? '',
  }));
}

const declared = new Set(Object.values(SCHEMAS).flatMap((schema) => Object.keys(schema.shape)));

/** A parsed value as README writes it: a list comma-separated, as its variable is. */
const written = (value: unknown): string =>
  Array.isArray(value) ? value.map(written).join(',') : JSON.stringify(value).replace(/^"|"$/g, '');

/** What each schema declaring the variable takes when it is unset, written as README would. */
function defaultsOf(variable: string): Set<string> {
  const values = new Set<string>();
  for (const schema of Object.values(SCHEMAS)) {
    const field = schema.shape[variable] as z.ZodType | undefined;
    if (!field) continue;
    const parsed = field.safeParse(undefined);
    values.add(parsed.success && parsed.data !== undefined ? written(parsed.data) : 'unset');
  }
  return values;
}

describe("README.md's configuration table", () => {
  it('has a row for every variable the schemas declare', () => {
    const documented = new Set(rows().flatMap((row) => row.variables));
    const missing = [...declared].filter((name) => !documented.has(name)).sort();
    expect(
      missing,
      `variables without a row in README.md (add them): ${missing.join(', ')}`,
    ).toEqual([]);
  });

  it('names no variable that no schema reads', () => {
    const unknown = rows()
      .flatMap((row) => row.variables)
      .filter((name) => !declared.has(name));
    expect(
      unknown,
      `rows of README.md no service reads (remove them): ${unknown.join(', ')}`,
    ).toEqual([]);
  });

  it("gives the schema's default wherever a row gives one value", () => {
    const wrong: string[] = [];
    for (const { variables, defaultCell } of rows()) {
      const single = /^`([^`]*)`(?: \(.*\))?$/.exec(defaultCell)?.[1];
      if (variables.length !== 1 || single === undefined) continue;
      const variable = variables[0]!;
      const defaults = defaultsOf(variable);
      if (defaults.size === 1 && !defaults.has(single)) {
        wrong.push(`${variable}: README says ${single}, the schema ${[...defaults].join()}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
