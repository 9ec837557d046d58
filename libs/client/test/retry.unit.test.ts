import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, retryAfterSeconds, retryDelaySeconds } from '../src/retry.ts';

const policy = DEFAULT_RETRY_POLICY;
const noJitter = () => 0;

describe('retryDelaySeconds', () => {
  it('waits what Retry-After asks on a 429, safe or not', () => {
    expect(retryDelaySeconds({ status: 429, retryAfter: '3' }, 0, false, policy)).toBe(3);
    expect(retryDelaySeconds({ status: 429, retryAfter: '3' }, 0, true, policy)).toBe(3);
  });

  it('repeats a 503 or a lost connection only when repeating is safe', () => {
    expect(retryDelaySeconds({ status: 503, retryAfter: '1' }, 0, true, policy)).toBe(1);
    expect(retryDelaySeconds({ status: 503, retryAfter: '1' }, 0, false, policy)).toBeNull();
    expect(retryDelaySeconds({ lost: true }, 0, true, policy, noJitter)).toBe(0.5);
    expect(retryDelaySeconds({ lost: true }, 0, false, policy, noJitter)).toBeNull();
  });

  it('backs off 0.5 s, 1 s, 2 s … with at most a quarter more, without Retry-After', () => {
    const many = { maxRetries: 10, maxRetryDelaySeconds: 60 };
    const delays = [0, 1, 2, 3, 4, 5].map((attempt) =>
      retryDelaySeconds({ status: 503, retryAfter: null }, attempt, true, many, noJitter),
    );
    expect(delays).toEqual([0.5, 1, 2, 4, 8, 8]);
    expect(retryDelaySeconds({ lost: true }, 1, true, many, () => 0.999)).toBeCloseTo(1.25, 2);
  });

  it('stops after maxRetries, and when dzpay asks to wait longer than allowed', () => {
    expect(retryDelaySeconds({ status: 429, retryAfter: '0' }, 2, true, policy)).toBeNull();
    expect(retryDelaySeconds({ status: 429, retryAfter: '1800' }, 0, true, policy)).toBeNull();
    expect(
      retryDelaySeconds({ status: 429, retryAfter: '0' }, 0, true, { ...policy, maxRetries: 0 }),
    ).toBeNull();
  });

  it('never repeats any other answer', () => {
    for (const status of [400, 401, 404, 409, 422, 500, 502]) {
      expect(retryDelaySeconds({ status, retryAfter: '0' }, 0, true, policy)).toBeNull();
    }
  });
});

describe('retryAfterSeconds', () => {
  it('reads delta-seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Fri, 27 Nov 2026 10:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Fri, 27 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds('-5', now)).toBeUndefined();
  });
});
