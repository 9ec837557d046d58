import { describe, expect, it } from 'vitest';
import { centimesToDzd, dzdToCentimes, hasAtMostTwoDecimals } from '../src/money.ts';

describe('money', () => {
  it.each([1, 1.5, 1.25, 0.29, 0.01, 999999.99, 2500.5])(
    'accepts %s as at most two decimals',
    (dzd) => {
      expect(hasAtMostTwoDecimals(dzd)).toBe(true);
    },
  );

  it.each([1.005, 0.001, 12.345, 1 / 3, 0.000000001, 0.0099999999])(
    'refuses %s as more than two decimals',
    (dzd) => {
      expect(hasAtMostTwoDecimals(dzd)).toBe(false);
    },
  );

  it('converts DZD to integer centimes without floating-point drift', () => {
    expect(dzdToCentimes(0.29)).toBe(29);
    expect(dzdToCentimes(2500.5)).toBe(250050);
    expect(dzdToCentimes(1_000_000)).toBe(100_000_000);
    expect(Number.isInteger(dzdToCentimes(19.99))).toBe(true);
  });

  it('converts centimes back to DZD', () => {
    expect(centimesToDzd(250050)).toBe(2500.5);
    expect(centimesToDzd(29)).toBe(0.29);
  });
});
