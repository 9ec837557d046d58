import { describe, expect, it } from 'vitest';
import { parseSetQrConfig } from '../src/qr-codes/qr-config-request.ts';

const now = new Date('2026-11-21T12:00:00.000Z');
const valid = { token: 'QR1', amounts: [1500, 2500.5], singleUse: true };
// The merchant's payable range in centimes: 50 DZD to 100 000 DZD.
const range = { minAmount: 5_000, maxAmount: 10_000_000 };

const errorsOf = (body: unknown) => {
  const result = parseSetQrConfig(body, now, range);
  return result.ok ? [] : result.error;
};

describe('parseSetQrConfig', () => {
  it('turns DZD amounts into integer centimes and a missing expiry into null', () => {
    expect(parseSetQrConfig(valid, now, range)).toEqual({
      ok: true,
      value: { token: 'QR1', amounts: [150000, 250050], expiresAt: null, singleUse: true },
    });
  });

  it('normalises the expiry to UTC', () => {
    const result = parseSetQrConfig(
      { ...valid, expiresAt: '2026-11-22T10:00:00+01:00' },
      now,
      range,
    );
    expect(result.ok && result.value.expiresAt).toBe('2026-11-22T09:00:00.000Z');
  });

  it('accepts a null expiry and a date-only expiry', () => {
    expect(parseSetQrConfig({ ...valid, expiresAt: null }, now, range).ok).toBe(true);
    const dateOnly = parseSetQrConfig({ ...valid, expiresAt: '2026-12-01' }, now, range);
    expect(dateOnly.ok && dateOnly.value.expiresAt).toBe('2026-12-01T00:00:00.000Z');
  });

  it('refuses an amount the merchant could never be paid, naming its range', () => {
    expect(errorsOf({ ...valid, amounts: [1500, 49.99] })).toEqual([
      "each value in amounts must be between 50 and 100000 (the merchant's payable range in DZD)",
    ]);
    expect(errorsOf({ ...valid, amounts: [100_000.01] })).toHaveLength(1);
    expect(errorsOf({ ...valid, amounts: [50, 100_000] })).toEqual([]);
  });

  it('reads a date-time without a zone (Python isoformat) as UTC', () => {
    for (const expiresAt of ['2030-12-31T23:00:00', '2030-12-31T23:00:00.250']) {
      const result = parseSetQrConfig({ ...valid, expiresAt }, now, range);
      expect(result.ok && result.value.expiresAt).toBe(
        `${expiresAt.slice(0, 19)}${expiresAt.length > 19 ? '.250' : '.000'}Z`,
      );
    }
  });

  it.each([
    [{ ...valid, token: 7 }, ['token must be a string']],
    [{ ...valid, token: '' }, ['token should not be empty']],
    [
      { ...valid, token: 'T'.repeat(256) },
      ['token must be shorter than or equal to 255 characters'],
    ],
    [{ ...valid, amounts: [] }, ['amounts must contain at least 1 element']],
    [{ ...valid, amounts: 'x' }, ['amounts must be an array']],
    [{ ...valid, amounts: [0] }, ['each value in amounts must be a positive number']],
    [{ ...valid, amounts: [-10] }, ['each value in amounts must be a positive number']],
    [{ ...valid, amounts: ['100'] }, ['each value in amounts must be a positive number']],
    [{ ...valid, amounts: [10.123] }, ['each value in amounts must have at most 2 decimal places']],
    [{ ...valid, amounts: [1e-9] }, ['each value in amounts must have at most 2 decimal places']],
    [{ ...valid, token: 'QR\u0000' }, ['token must not contain control characters']],
    [{ ...valid, token: '   ' }, ['token should not be empty']],
    [
      { ...valid, amounts: [1_000_000.01] },
      ['each value in amounts must not be greater than 1000000'],
    ],
    [{ ...valid, amounts: Array(21).fill(1) }, ['amounts must contain no more than 20 elements']],
    [{ ...valid, expiresAt: 'tomorrow' }, ['expiresAt must be a valid ISO 8601 date string']],
    [{ ...valid, expiresAt: 1764000000 }, ['expiresAt must be a valid ISO 8601 date string']],
    [
      { ...valid, expiresAt: '2026-02-30T00:00:00Z' },
      ['expiresAt must be a valid ISO 8601 date string'],
    ],
    [{ ...valid, expiresAt: '2026-11-21T11:59:59Z' }, ['expiresAt must be in the future']],
    [{ ...valid, singleUse: 'yes' }, ['singleUse must be a boolean']],
    [{ ...valid, color: 'red' }, ['property color should not exist']],
  ])('refuses %j with %j', (body, messages) => {
    expect(errorsOf(body)).toEqual(messages);
  });

  it('lists one message per failed rule when everything is wrong', () => {
    expect(errorsOf({ token: 1, amounts: [], expiresAt: 'soon', singleUse: 'no' })).toEqual([
      'token must be a string',
      'amounts must contain at least 1 element',
      'expiresAt must be a valid ISO 8601 date string',
      'singleUse must be a boolean',
    ]);
  });

  it('checks every field of a missing body', () => {
    expect(errorsOf(undefined)).toEqual([
      'token should not be empty',
      'token must be a string',
      'amounts must be an array',
      'amounts must contain at least 1 element',
      'singleUse must be a boolean',
    ]);
  });

  it('says so when the body is not an object', () => {
    expect(errorsOf([1, 2])[0]).toBe('request body must be a JSON object');
    expect(errorsOf('token')[0]).toBe('request body must be a JSON object');
  });
});
