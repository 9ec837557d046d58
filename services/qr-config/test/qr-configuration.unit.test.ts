import { describe, expect, it } from 'vitest';
import { configurationState } from '../src/domain/qr-configuration.ts';
import { newQrToken } from '../src/domain/qr-token.ts';

const config = (expiresAt: string | null) => ({
  amounts: [100_00],
  expiresAt,
  singleUse: false,
  version: 1,
  updatedAt: '2026-11-01T00:00:00.000Z',
});

describe('configurationState', () => {
  const now = new Date('2026-11-21T12:00:00.000Z');

  it('is none without a configuration', () => {
    expect(configurationState(null, now)).toBe('none');
  });

  it('is configured when permanent', () => {
    expect(configurationState(config(null), now)).toBe('configured');
  });

  it('is configured until the expiry instant', () => {
    expect(configurationState(config('2026-11-21T12:00:00.001Z'), now)).toBe('configured');
  });

  it('is expired at and after the expiry instant', () => {
    expect(configurationState(config('2026-11-21T12:00:00.000Z'), now)).toBe('expired');
    expect(configurationState(config('2026-11-20T00:00:00.000Z'), now)).toBe('expired');
  });
});

describe('newQrToken', () => {
  it('makes 22 URL-safe characters from Crockford base32', () => {
    expect(newQrToken()).toMatch(/^QR[0-9A-HJKMNP-TV-Z]{20}$/);
  });

  it('differs each time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newQrToken()));
    expect(tokens.size).toBe(1000);
  });

  it('depends only on its random bytes', () => {
    const zeros = (size: number) => Buffer.alloc(size, 0);
    expect(newQrToken(zeros)).toBe(`QR${'0'.repeat(20)}`);
  });
});
