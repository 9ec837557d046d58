import { describe, expect, it } from 'vitest';
import {
  IDEMPOTENT_RETRY,
  mayTryAgain,
  patienceMs,
  pauseAfterNoResponders,
  SINGLE_TRY,
} from '../src/rpc-retry.ts';

const policy = IDEMPOTENT_RETRY;

describe('the retry policy of NATS requests', () => {
  it('waits a second for the newest try, less when the deadline is nearer', () => {
    expect(patienceMs(policy, 0, 5_000)).toBe(1_000);
    expect(patienceMs(policy, 4_600, 5_000)).toBe(400);
    expect(patienceMs(policy, 5_300, 5_000)).toBe(0);
  });

  it('pauses 100 ms, then 250 ms, before asking again after no-responders', () => {
    expect(pauseAfterNoResponders(policy, 1)).toBe(100);
    expect(pauseAfterNoResponders(policy, 2)).toBe(250);
    expect(pauseAfterNoResponders(policy, 3)).toBe(250);
  });

  it('sends four tries at most', () => {
    expect(mayTryAgain(policy, 3, 0, 60_000)).toBe(true);
    expect(mayTryAgain(policy, 4, 0, 60_000)).toBe(false);
  });

  it('sends no try that would have less than 100 ms', () => {
    expect(mayTryAgain(policy, 1, 4_900, 5_000)).toBe(true);
    expect(mayTryAgain(policy, 1, 4_950, 5_000)).toBe(false);
  });

  it('gives a call that must not run twice one try over the whole timeout', () => {
    expect(mayTryAgain(SINGLE_TRY, 1, 0, 5_000)).toBe(false);
    expect(patienceMs(SINGLE_TRY, 0, 5_000)).toBe(5_000);
    expect(pauseAfterNoResponders(SINGLE_TRY, 1)).toBe(0);
  });
});
