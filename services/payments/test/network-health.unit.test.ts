import { describe, expect, it } from 'vitest';
import { networkHealth } from '../src/domain/network-health.ts';

describe('networkHealth', () => {
  it('is up until a failure, down for downMs after it, and up again at the first success', () => {
    const health = networkHealth({ downMs: 1_000, configured: true });
    expect(health.isDown(0)).toBe(false);
    health.failed(10_000);
    expect(health.isDown(10_000)).toBe(true);
    expect(health.isDown(10_999)).toBe(true);
    expect(health.isDown(11_000)).toBe(false);
    health.failed(20_000);
    health.succeeded();
    expect(health.isDown(20_001)).toBe(false);
  });

  it('counts downMs from the latest failure', () => {
    const health = networkHealth({ downMs: 1_000, configured: true });
    health.failed(0);
    health.failed(900);
    expect(health.isDown(1_500)).toBe(true);
    expect(health.isDown(1_900)).toBe(false);
  });

  it('is always down when no network is configured, whatever succeeds', () => {
    const health = networkHealth({ downMs: 1_000, configured: false });
    health.succeeded();
    expect(health.isDown(0)).toBe(true);
    expect(health.isDown(Number.MAX_SAFE_INTEGER)).toBe(true);
  });
});
