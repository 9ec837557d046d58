import { describe, expect, it } from 'vitest';
import { hashApiKey, issueApiKey, modeOfApiKey, sameHash } from '@dzpay/accounts';

describe('API keys', () => {
  it('issues test and live keys with their prefixes and 32 random bytes', () => {
    const test = issueApiKey('test');
    const live = issueApiKey('live');
    expect(test.key).toMatch(/^pk_test_[A-Za-z0-9_-]{43}$/);
    expect(live.key).toMatch(/^pk_live_[A-Za-z0-9_-]{43}$/);
    expect(test.mode).toBe('test');
    expect(test.displayPrefix).toBe(`${test.key.slice(0, 12)}…`);
  });

  it('stores only the SHA-256 of the key', () => {
    const issued = issueApiKey('test');
    expect(issued.hash).toHaveLength(32);
    expect(issued.hash.equals(hashApiKey(issued.key))).toBe(true);
    expect(issued.hash.toString('utf8')).not.toContain(issued.key);
  });

  it('reads the mode of well-formed keys only', () => {
    expect(modeOfApiKey(issueApiKey('live').key)).toBe('live');
    expect(modeOfApiKey(issueApiKey('test').key)).toBe('test');
    expect(modeOfApiKey('pk_test_short')).toBeNull();
    expect(modeOfApiKey('sk_test_' + 'a'.repeat(43))).toBeNull();
    expect(modeOfApiKey('')).toBeNull();
  });

  it('compares hashes of equal and unequal keys', () => {
    const a = hashApiKey('pk_test_a');
    expect(sameHash(a, hashApiKey('pk_test_a'))).toBe(true);
    expect(sameHash(a, hashApiKey('pk_test_b'))).toBe(false);
    expect(sameHash(a, Buffer.alloc(3))).toBe(false);
  });
});
