import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';

/**
 * deploy/prometheus/dzpay-alerts.yaml: well formed, every metric it reads exported by a
 * service (a renamed metric would silence its alert), every alert pointing at a runbook
 * entry that exists.
 */

const root = join(import.meta.dirname, '..');

const Rules = z.object({
  groups: z.array(
    z.object({
      name: z.string(),
      rules: z.array(
        z.strictObject({
          alert: z.string().regex(/^Dzpay[A-Za-z]+$/),
          expr: z.string().min(1),
          for: z
            .string()
            .regex(/^\d+[smh]$/)
            .optional(),
          labels: z.object({ severity: z.enum(['page', 'ticket']) }),
          annotations: z.object({
            summary: z.string().min(1),
            runbook: z.string().regex(/^docs\/runbook\.md#[a-z0-9-]+$/),
          }),
        }),
      ),
    }),
  ),
});

const rules = Rules.parse(
  parse(readFileSync(join(root, 'deploy/prometheus/dzpay-alerts.yaml'), 'utf8')),
).groups.flatMap((group) => group.rules);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'test') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const exported = new Set(
  [...sourceFiles(join(root, 'services')), ...sourceFiles(join(root, 'libs'))].flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/name: '(dzpay_[a-z_]+)'/g)].map((m) => m[1]!),
  ),
);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const anchors = new Set(
  readFileSync(join(root, 'docs/runbook.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('#'))
    .map((line) =>
      line
        .replace(/^#+\s*/, '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N} -]/gu, '')
        .replace(/ /g, '-'),
    ),
);

describe('the alert rules', () => {
  it('read only metrics the services export', () => {
    const used = rules.flatMap((rule) =>
      [...rule.expr.matchAll(/dzpay_[a-z_]+/g)].map((m) => m[0]),
    );
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((metric) => !exported.has(metric))).toEqual([]);
  });

  it('each point at a runbook entry that exists', () => {
    const missing = rules
      .map((rule) => rule.annotations.runbook.split('#')[1]!)
      .filter((anchor) => !anchors.has(anchor));
    expect(missing).toEqual([]);
  });

  it('have unique names', () => {
    const names = rules.map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
  });
});
