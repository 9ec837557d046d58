import { createLogger } from '@dzpay/platform';
import { describe, expect, it } from 'vitest';
import { keyUseRecorder } from '../src/adapters/key-use-recorder.ts';

function recorder(options: { maxKeys?: number; fail?: boolean } = {}) {
  const written: [string, string][] = [];
  let now = Date.parse('2026-11-20T10:00:00Z');
  const used = keyUseRecorder(
    (keyId, at) => {
      written.push([keyId, at.toISOString()]);
      return options.fail ? Promise.reject(new Error('database down')) : Promise.resolve();
    },
    {
      intervalMs: 60_000,
      maxKeys: options.maxKeys ?? 10,
      logger: createLogger('test', 'silent'),
      clock: () => new Date(now),
    },
  );
  return { used, written, advance: (ms: number) => (now += ms) };
}

describe('the key use recorder', () => {
  it('writes a key down once a minute at most, each key on its own', () => {
    const { used, written, advance } = recorder();
    used('k1');
    used('k1');
    used('k2');
    advance(59_999);
    used('k1');
    advance(1);
    used('k1');
    expect(written).toEqual([
      ['k1', '2026-11-20T10:00:00.000Z'],
      ['k2', '2026-11-20T10:00:00.000Z'],
      ['k1', '2026-11-20T10:01:00.000Z'],
    ]);
  });

  it('keeps its memory bounded: past the limit it forgets and writes again sooner', () => {
    const { used, written } = recorder({ maxKeys: 2 });
    for (const key of ['a', 'b', 'c', 'a']) used(key);
    expect(written.map(([key]) => key)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('never fails the request that used the key when the write fails', async () => {
    const { used, written } = recorder({ fail: true });
    expect(() => used('k1')).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toHaveLength(1);
  });
});
