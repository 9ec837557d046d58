import { describe, expect, it } from 'vitest';
import { isExpired, luhnValid, maskPan, parseCardForm } from '../src/domain/card.ts';

const form = {
  pan: '6280 5800 0000 0009',
  expiry: '12/30',
  cvv: '123',
  cardholderName: '  Amine   Benali ',
};

describe('luhnValid', () => {
  it('accepts numbers whose check digit is right', () => {
    expect(luhnValid('6280580000000009')).toBe(true);
    expect(luhnValid('4111111111111111')).toBe(true);
  });

  it('refuses a wrong check digit and non-digits', () => {
    expect(luhnValid('6280580000000001')).toBe(false);
    expect(luhnValid('62805800000000x9')).toBe(false);
    expect(luhnValid('')).toBe(false);
  });
});

describe('maskPan', () => {
  it('keeps the first 6 and last 4 digits only', () => {
    expect(maskPan('6280580000001234')).toBe('628058**1234');
    expect(maskPan('6280580000000000009')).toBe('628058**0009');
  });
});

describe('isExpired', () => {
  const now = new Date('2026-11-21T12:00:00Z');

  it('keeps a card valid through its expiry month', () => {
    expect(isExpired({ expiryMonth: 11, expiryYear: 2026 }, now)).toBe(false);
    expect(isExpired({ expiryMonth: 1, expiryYear: 2027 }, now)).toBe(false);
  });

  it('expires it from the next month on', () => {
    expect(isExpired({ expiryMonth: 10, expiryYear: 2026 }, now)).toBe(true);
    expect(isExpired({ expiryMonth: 12, expiryYear: 2025 }, now)).toBe(true);
  });
});

describe('parseCardForm', () => {
  it('normalises spaces in the PAN and the name, and reads MM/YY', () => {
    expect(parseCardForm(form)).toEqual({
      ok: true,
      value: {
        pan: '6280580000000009',
        expiryMonth: 12,
        expiryYear: 2030,
        cvv: '123',
        cardholderName: 'Amine Benali',
      },
    });
  });

  it('accepts MMYY without the slash', () => {
    const parsed = parseCardForm({ ...form, expiry: '0128' });
    expect(parsed.ok && parsed.value.expiryMonth).toBe(1);
  });

  it.each([
    ['a PAN failing Luhn', { pan: '6280580000000001' }, 'pan'],
    ['a PAN too short', { pan: '4242' }, 'pan'],
    ['a missing PAN', { pan: undefined }, 'pan'],
    ['month 13', { expiry: '13/30' }, 'expiry'],
    ['an expiry in words', { expiry: 'soon' }, 'expiry'],
    ['a 4-digit CVV2', { cvv: '1234' }, 'cvv'],
    ['an empty name', { cardholderName: '   ' }, 'name'],
    ['a name with control characters', { cardholderName: 'A\u0000B' }, 'name'],
  ])('refuses %s', (_label, change, error) => {
    expect(parseCardForm({ ...form, ...change })).toEqual({ ok: false, error });
  });
});
