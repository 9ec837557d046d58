import {
  paymentEventsSubject,
  PaymentEventTypes,
  Rpc,
  WebhookDeliveryEventTypes,
  webhookEventsSubject,
} from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { codeOf, readDoc, repeated, tablesStartingWith } from './markdown-tables.ts';

// docs/architecture.md's table of NATS subjects against the catalogs of libs/contracts:
// a subject added, renamed or dropped in the code fails here until the page says so.

/**
 * Every subject dzpay sends on NATS: the request/reply catalog, and the streams' events
 * of each type (their channel and kind left as wildcards).
 */
const catalog = [
  ...Object.values(Rpc).map((definition) => definition.subject),
  ...Object.values(PaymentEventTypes).map((type) => paymentEventsSubject({ type })),
  ...Object.values(WebhookDeliveryEventTypes).map((type) => webhookEventsSubject({ type })),
];

function documentedSubjects(): string[] {
  const tables = tablesStartingWith(readDoc('architecture.md'), 'subject');
  expect(tables, 'docs/architecture.md has one table whose first column is "subject"').toHaveLength(
    1,
  );
  return tables[0]!.rows.map((row) => codeOf(row[0] ?? ''));
}

describe("docs/architecture.md's subject table", () => {
  it('has a row for every subject of the catalogs', () => {
    const documented = documentedSubjects();
    const missing = catalog.filter((subject) => !documented.includes(subject));
    expect(
      missing,
      `subjects without a row in docs/architecture.md (add them): ${missing.join(', ')}`,
    ).toEqual([]);
  });

  it('has no row for a subject the catalogs do not hold', () => {
    const extra = documentedSubjects().filter((subject) => !catalog.includes(subject));
    expect(
      extra,
      `rows of docs/architecture.md for no subject of libs/contracts (remove or rename them): ${extra.join(', ')}`,
    ).toEqual([]);
  });

  it('has one row per subject', () => {
    const twice = repeated(documentedSubjects());
    expect(twice, `subjects with more than one row: ${twice.join(', ')}`).toEqual([]);
  });

  it('gives every row who sends it, who handles it and what it does', () => {
    const incomplete = tablesStartingWith(readDoc('architecture.md'), 'subject')[0]!
      .rows.filter((row) => row.length < 4 || row.slice(0, 4).some((cell) => cell === ''))
      .map((row) => row[0] ?? '(empty)');
    expect(incomplete, `rows with an empty cell: ${incomplete.join(', ')}`).toEqual([]);
  });
});
