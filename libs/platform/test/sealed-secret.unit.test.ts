import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret, secretsKey } from '../src/sealed-secret.ts';

describe('sealed secrets', () => {
  const key = randomBytes(32);

  it('opens what it sealed, and never holds the secret in clear', () => {
    const sealed = sealSecret('partner-secret-Ω', key, 'm|test');
    expect(sealed.toString('utf8')).not.toContain('partner-secret');
    expect(openSecret(sealed, key, 'm|test')).toBe('partner-secret-Ω');
  });

  it('seals the same secret differently each time', () => {
    expect(sealSecret('s', key, 'o').equals(sealSecret('s', key, 'o'))).toBe(false);
  });

  it('refuses a tampered box or another key', () => {
    const sealed = sealSecret('secret', key, 'm|test');
    sealed[sealed.length - 1]! ^= 1;
    expect(() => openSecret(sealed, key, 'm|test')).toThrow();
    expect(() =>
      openSecret(sealSecret('secret', key, 'm|test'), randomBytes(32), 'm|test'),
    ).toThrow();
  });

  it("refuses a box moved to another owner's row", () => {
    const sealed = sealSecret('secret', key, 'merchant-a|live');
    expect(() => openSecret(sealed, key, 'merchant-b|live')).toThrow();
  });

  it('reads a 32-byte base64 key only', () => {
    expect(secretsKey(randomBytes(32).toString('base64'))).toHaveLength(32);
    expect(() => secretsKey('c2hvcnQ=')).toThrow(/32 bytes/);
  });
});
