import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GRACE_HOURS,
  firstSigningSecret,
  graceHoursProblem,
  newSigningSecret,
  rotateSigningSecret,
} from '@dzpay/accounts';

const fixed = (size: number) => Buffer.alloc(size, 7);

describe('webhook signing secrets', () => {
  it('are whsec_ and base64 of 32 random bytes', () => {
    expect(newSigningSecret(fixed)).toBe(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
    expect(newSigningSecret()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSigningSecret()).not.toBe(newSigningSecret());
  });

  it('the first one is made only if none exists; a given one replaces it', () => {
    expect(firstSigningSecret(undefined, fixed)).toEqual({
      secret: newSigningSecret(fixed),
      onlyIfNone: true,
      generated: true,
    });
    expect(firstSigningSecret('operator-chosen')).toEqual({
      secret: 'operator-chosen',
      onlyIfNone: false,
      generated: false,
    });
  });

  it('a rotation keeps the previous one for the grace (24 h by default, 0 ends it now)', () => {
    const now = new Date('2025-03-14T09:00:00.000Z');
    expect(DEFAULT_GRACE_HOURS).toBe(24);
    expect(rotateSigningSecret(now).previousValidUntil).toEqual(
      new Date('2025-03-15T09:00:00.000Z'),
    );
    expect(rotateSigningSecret(now, 168).previousValidUntil).toEqual(
      new Date('2025-03-21T09:00:00.000Z'),
    );
    expect(rotateSigningSecret(now, 0).previousValidUntil).toBeNull();
    expect(() => rotateSigningSecret(now, 169)).toThrow(/at most 168/);
    expect(graceHoursProblem(-1)).toMatch(/whole number/);
    expect(graceHoursProblem(1.5)).toMatch(/whole number/);
    expect(graceHoursProblem(168)).toBeNull();
  });
});
