import { describe, expect, it } from 'vitest';
import { nextStep, retryAfterMs } from '../src/domain/retry.ts';

const schedule = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
const now = new Date('2025-03-14T09:00:00.000Z');
const retry = { kind: 'retry', retryAfterMs: null } as const;
const waitOf = (step: ReturnType<typeof nextStep>) =>
  step.state === 'pending' ? step.nextAttemptAt.getTime() - now.getTime() : null;

describe('the retry schedule', () => {
  it('waits the scheduled delay after each failed attempt, with no jitter at the midpoint', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((attempts) =>
      waitOf(nextStep({ verdict: retry, attempts, schedule, now, random: () => 0.5 })),
    );
    expect(waits).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
  });

  it('keeps the jitter within ±10 %', () => {
    const low = nextStep({ verdict: retry, attempts: 2, schedule, now, random: () => 0 });
    const high = nextStep({ verdict: retry, attempts: 2, schedule, now, random: () => 0.999_999 });
    expect(waitOf(low)).toBe(270_000);
    expect(waitOf(high)).toBeGreaterThan(329_000);
    expect(waitOf(high)).toBeLessThanOrEqual(330_000);
  });

  it('fails the delivery once the last scheduled attempt failed', () => {
    expect(nextStep({ verdict: retry, attempts: 8, schedule, now, random: () => 0.5 })).toEqual({
      state: 'fail',
    });
  });

  it('succeeds on a delivered attempt and fails at once on a stop', () => {
    const base = { attempts: 1, schedule, now, random: () => 0.5 };
    expect(nextStep({ ...base, verdict: { kind: 'delivered' } })).toEqual({ state: 'success' });
    expect(nextStep({ ...base, verdict: { kind: 'stop' } })).toEqual({ state: 'fail' });
  });

  it('honours a Retry-After later than the schedule, and ignores an earlier one', () => {
    const base = { attempts: 1, schedule, now, random: () => 0.5 };
    expect(waitOf(nextStep({ ...base, verdict: { kind: 'retry', retryAfterMs: 60_000 } }))).toBe(
      60_000,
    );
    expect(waitOf(nextStep({ ...base, verdict: { kind: 'retry', retryAfterMs: 1_000 } }))).toBe(
      5_000,
    );
  });

  it('caps a Retry-After at a day', () => {
    const verdict = { kind: 'retry', retryAfterMs: 30 * 86_400_000 } as const;
    expect(waitOf(nextStep({ verdict, attempts: 1, schedule, now, random: () => 0.5 }))).toBe(
      86_400_000,
    );
  });

  it('never retries past the schedule because of a Retry-After', () => {
    const verdict = { kind: 'retry', retryAfterMs: 1_000 } as const;
    expect(nextStep({ verdict, attempts: 8, schedule, now, random: () => 0.5 })).toEqual({
      state: 'fail',
    });
  });
});

describe('reading Retry-After', () => {
  it('reads delay-seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Fri, 14 Mar 2025 09:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Fri, 14 Mar 2025 08:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(undefined, now)).toBeNull();
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs('-5', now)).toBeNull();
  });
});
