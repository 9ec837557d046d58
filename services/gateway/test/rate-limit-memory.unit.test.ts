import { describe, expect, it } from 'vitest';
import { memoryWindows } from '../src/adapters/rate-limit-memory.ts';

describe('memoryWindows: fixed windows counted in this process', () => {
  it('counts per key within a window and starts again when it ends', () => {
    let now = 1_000;
    const windows = memoryWindows(100, () => now);
    expect(windows.hit('a', 60_000)).toEqual({ current: 1, ttlMs: 60_000 });
    now += 10_000;
    expect(windows.hit('a', 60_000)).toEqual({ current: 2, ttlMs: 50_000 });
    expect(windows.hit('b', 60_000)).toEqual({ current: 1, ttlMs: 60_000 });
    now += 50_000;
    expect(windows.hit('a', 60_000)).toEqual({ current: 1, ttlMs: 60_000 });
  });

  it('keeps at most maxKeys: ended windows go first, then the least recently counted', () => {
    let now = 0;
    const windows = memoryWindows(3, () => now);
    windows.hit('short', 10);
    windows.hit('a', 60_000);
    windows.hit('b', 60_000);
    now = 20;
    windows.hit('c', 60_000);
    expect(windows.size).toBe(3);
    // 'short' had ended: it made room, 'a' kept its count.
    expect(windows.hit('a', 60_000).current).toBe(2);
    // Full of live windows: the least recently counted ('b') goes.
    windows.hit('d', 60_000);
    expect(windows.size).toBe(3);
    expect(windows.hit('c', 60_000).current).toBe(2);
    expect(windows.hit('b', 60_000).current).toBe(1);
  });
});
