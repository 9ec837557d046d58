import { ErrorCatalog, type ErrorCode } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { codeOf, readDoc, repeated, tablesStartingWith } from './markdown-tables.ts';

// docs/errors.md against libs/contracts' ErrorCatalog: every code in a table of the page
// with the HTTP status it travels with, and no code the catalog does not hold.

interface DocumentedCode {
  code: string;
  http: string;
}

function documentedCodes(): DocumentedCode[] {
  const tables = tablesStartingWith(readDoc('errors.md'), 'errorCode');
  expect(
    tables.length,
    'docs/errors.md has tables whose first column is "errorCode"',
  ).toBeGreaterThan(0);
  return tables.flatMap(({ header, rows }) => {
    const http = header.indexOf('HTTP');
    expect(
      http,
      `a table of docs/errors.md without an "HTTP" column: ${header.join(' | ')}`,
    ).toBeGreaterThan(0);
    return rows.map((row) => ({ code: codeOf(row[0] ?? ''), http: row[http] ?? '' }));
  });
}

const catalogCodes = Object.keys(ErrorCatalog) as ErrorCode[];
const inCatalog = (code: string): code is ErrorCode => Object.hasOwn(ErrorCatalog, code);

describe('docs/errors.md', () => {
  it('lists every code of the catalog', () => {
    const documented = documentedCodes().map(({ code }) => code);
    const missing = catalogCodes.filter((code) => !documented.includes(code));
    expect(
      missing,
      `codes of libs/contracts/src/errors.ts without a row in docs/errors.md (add them): ${missing.join(', ')}`,
    ).toEqual([]);
  });

  it('lists no code the catalog does not hold', () => {
    const extra = documentedCodes()
      .map(({ code }) => code)
      .filter((code) => !inCatalog(code));
    expect(
      extra,
      `rows of docs/errors.md for no code of the catalog (remove or rename them): ${extra.join(', ')}`,
    ).toEqual([]);
  });

  it('gives each code the HTTP status it travels with', () => {
    const wrong = documentedCodes()
      .filter(({ code, http }) => inCatalog(code) && http !== String(ErrorCatalog[code]))
      .map(
        ({ code, http }) =>
          `${code} says ${http || 'nothing'}, the catalog ${ErrorCatalog[code as ErrorCode]}`,
      );
    expect(wrong, `wrong HTTP statuses in docs/errors.md: ${wrong.join('; ')}`).toEqual([]);
  });

  it('lists each code once', () => {
    const twice = repeated(documentedCodes().map(({ code }) => code));
    expect(twice, `codes with more than one row: ${twice.join(', ')}`).toEqual([]);
  });
});
