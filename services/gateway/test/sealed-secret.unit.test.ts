import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret, secretsKey } from '../src/domain/sealed-secret.ts';

describe('sealed secrets', () => {
  const key = randomBytes(32);

  it('opens what it sealed, and never holds the secret in clear', () => {
    const sealed = sealSecret('partner-secret-Ω', key);
    expect(sealed.toString('utf8')).not.toContain('partner-secret');
    expect(openSecret(sealed, key)).toBe('partner-secret-Ω');
  });

  it('seals the same secret differently each time', () => {
    expect(sealSecret('s', key).equals(sealSecret('s', key))).toBe(false);
  });

  it('refuses a tampered box or another key', () => {
    const sealed = sealSecret('secret', key);
    sealed[sealed.length - 1]! ^= 1;
    expect(() => openSecret(sealed, key)).toThrow();
    expect(() => openSecret(sealSecret('secret', key), randomBytes(32))).toThrow();
  });

  it('reads a 32-byte base64 key only', () => {
    expect(secretsKey(randomBytes(32).toString('base64'))).toHaveLength(32);
    expect(() => secretsKey('c2hvcnQ=')).toThrow(/32 bytes/);
  });
});
