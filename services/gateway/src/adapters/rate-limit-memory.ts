/** One key's count in its current window. */
interface WindowCount {
  current: number;
  /** Until the window ends. */
  ttlMs: number;
}

export interface MemoryWindows {
  /** Counts one request under `key`; a window starts at a key's first request. */
  hit(key: string, windowMs: number): WindowCount;
  readonly size: number;
}

/**
 * Fixed windows counted in this process, for when Redis is unreachable. At most
 * `maxKeys` keys: past that, ended windows go first, then the least recently counted
 * key (a caller spreading over more addresses than that gets fresh counts, as it would
 * from more replicas).
 */
export function memoryWindows(maxKeys: number, now: () => number = Date.now): MemoryWindows {
  // Insertion order is recency order: a counted key is moved to the end.
  const windows = new Map<string, { count: number; endsAt: number }>();

  const makeRoom = (at: number) => {
    if (windows.size < maxKeys) return;
    for (const [key, window] of windows) {
      if (window.endsAt <= at) windows.delete(key);
    }
    while (windows.size >= maxKeys) {
      const oldest = windows.keys().next().value;
      if (oldest === undefined) break;
      windows.delete(oldest);
    }
  };

  return {
    hit(key, windowMs) {
      const at = now();
      let window = windows.get(key);
      windows.delete(key);
      if (!window || window.endsAt <= at) {
        makeRoom(at);
        window = { count: 0, endsAt: at + windowMs };
      }
      window.count += 1;
      windows.set(key, window);
      return { current: window.count, ttlMs: window.endsAt - at };
    },
    get size() {
      return windows.size;
    },
  };
}
