import { describe, expect, it } from 'vitest';
import { checkCoverage, coverageTable, FLOORS, needed, type Floor } from '../oracle/coverage.ts';

const floors: Floor[] = [
  { invariant: 'orders', counter: 'cancelsAcknowledged', min: 1, perMinute: 0, fromMinutes: 1 },
  { invariant: 'status samples', counter: 'statusSamples', min: 10, perMinute: 20, fromMinutes: 0 },
];

describe('coverage floors', () => {
  it('scale with the run: a rare action is not asked of a short run', () => {
    expect(needed(floors[0]!, 35 / 60)).toBe(0);
    expect(needed(floors[0]!, 2)).toBe(1);
    expect(needed(floors[1]!, 35 / 60)).toBe(11);
    expect(needed(floors[1]!, 10)).toBe(200);
  });

  it('hold when every counter meets its floor', () => {
    const verdict = checkCoverage({
      counters: { cancelsAcknowledged: 3, statusSamples: 45 },
      runMs: 120_000,
      floors,
    });
    expect(verdict).toMatchObject({ checked: 2, violations: [] });
  });

  it('fail on an invariant that checked nothing, or too little, or a counter never collected', () => {
    const verdict = checkCoverage({ counters: { statusSamples: 12 }, runMs: 120_000, floors });
    expect(verdict.violations).toEqual([
      'invariant orders checked nothing: cancelsAcknowledged = 0',
      'invariant status samples checked too little: statusSamples = 12, floor 40',
    ]);
  });

  it('ask the default table of a ten-minute run for every counter it names', () => {
    const verdict = checkCoverage({ counters: {}, runMs: 600_000 });
    expect(verdict.checked).toBe(FLOORS.length);
    expect(verdict.violations).toHaveLength(FLOORS.length);
  });

  it('print each counter with its floor, and counters without one', () => {
    const lines = coverageTable({
      counters: { cancelsAcknowledged: 0, statusSamples: 45, receipts: 4 },
      runMs: 120_000,
      floors,
    });
    expect(lines[0]).toBe('coverage (run of 2.0 min):');
    expect(lines[1]).toMatch(/^ {2}LOW +cancelsAcknowledged +0 +floor 1 +orders$/);
    expect(lines[2]).toMatch(/^ {2}ok +statusSamples +45 +floor 40 +status samples$/);
    expect(lines[3]).toMatch(/^ {7}receipts +4 +no floor/);
  });
});
