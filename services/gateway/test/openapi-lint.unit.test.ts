import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { API_OPERATIONS } from '../src/routes/operations.ts';
import { openApiDocument } from '../src/routes/shared/openapi-document.ts';

const run = promisify(execFile);
// The CLI a developer runs (`npx @redocly/cli lint`), from the workspace's install.
const redocly = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

// What an operator publishes: the document served with a public https base URL (served
// on localhost, the document names localhost, which redocly rightly warns about).
const document = openApiDocument('https://pay.dzpay.dz');
const folder = mkdtempSync(join(tmpdir(), 'dzpay-openapi-lint-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer?: string }[];
}

describe('the OpenAPI document, as a merchant developer lints it', () => {
  it('passes `redocly lint` with the recommended rules: no error, no warning', async () => {
    const file = join(folder, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // No redocly.yaml anywhere above the file: the CLI's built-in recommended rules.
    const { stdout } = await run(process.execPath, [redocly, 'lint', file, '--format=json'], {
      cwd: folder,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: LintProblem[];
    };
    const problems = report.problems.map(
      ({ ruleId, message, location }) => `${ruleId} at ${location[0]?.pointer}: ${message}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('types every query parameter with the schema its route parses it with', () => {
    for (const operation of API_OPERATIONS) {
      const described = Object.keys(operation.query ?? {}).sort();
      if (described.length === 0) continue;
      const where = operation.operationId;
      expect(operation.querySchema, `${where} has no querySchema`).toBeDefined();
      expect(Object.keys(operation.querySchema!.shape).sort(), where).toEqual(described);
    }
    const parameters = (id: string) =>
      Object.values(document.paths as Record<string, Record<string, Record<string, unknown>>>)
        .flatMap((methods) => Object.values(methods))
        .find((operation) => operation.operationId === id)!.parameters as {
        name: string;
        schema: Record<string, unknown>;
      }[];
    const byName = (id: string, name: string) =>
      parameters(id).find((parameter) => parameter.name === name)!.schema;
    expect(byName('listPayments', 'limit')).toMatchObject({ type: 'integer', maximum: 100 });
    expect(byName('listPayments', 'status')).toMatchObject({ type: 'string' });
    expect(byName('listPayments', 'status').enum).toContain('refunded');
    expect(byName('exportPayments', 'dialect')).toMatchObject({
      enum: ['standard', 'spreadsheet'],
    });
    expect(byName('dailyReport', 'from')).toEqual({ type: 'string', format: 'date' });
  });

  it("leaves the payer's pages out, and names the webhooks and how they are secured", () => {
    const paths = Object.keys(document.paths as object);
    expect(paths.some((path) => /^\/(checkout|pay|qr|link)\//.test(path))).toBe(false);
    const webhooks = document.webhooks as Record<string, Record<string, Record<string, unknown>>>;
    expect(webhooks.paymentOutcome!.post!.operationId).toBe('paymentOutcomeWebhook');
    expect(webhooks.paymentOutcome!.post!.security).toEqual([{ webhookSignature: [] }]);
    expect(webhooks.productLookup!.get!.security).toEqual([{ partnerSecret: [] }]);
  });

  it('says metadata is a JSON object, not a recursive type generators cannot write', () => {
    const text = JSON.stringify(document);
    expect(text).not.toMatch(/Shared\d/);
    expect(text).toContain('"additionalProperties":{"description":"any JSON value"}');
  });
});
