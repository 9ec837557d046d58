import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJournal, withinDeadline } from '../journal.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dzpay-journal-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a run’s journal', () => {
  it('writes each stage and verdict as it comes, so a run cut short still says what it checked', async () => {
    const journal = runJournal(dir, () => {});
    journal.stage('running', { runMs: 1_000 });
    journal.add({ name: '1. at most one success', checked: 3, violations: [] });
    journal.stage('settling');
    expect(journal.current).toBe('settling');
    const lines = (await readFile(join(dir, 'stages.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toMatchObject([
      { name: 'running', runMs: 1_000 },
      { verdict: '1. at most one success', checked: 3, violations: [] },
      { name: 'settling' },
    ]);
  });
});

describe('the run’s deadline', () => {
  it('ends a run that never ends, on time', async () => {
    const started = Date.now();
    expect(await withinDeadline(new Promise(() => {}), 50)).toEqual({ deadline: true });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('answers the run’s result or its error otherwise', async () => {
    expect(await withinDeadline(Promise.resolve(7), 1_000)).toEqual({ value: 7 });
    const failed = await withinDeadline(Promise.reject(new Error('boom')), 1_000);
    expect('error' in failed && failed.error.message).toBe('boom');
  });
});
