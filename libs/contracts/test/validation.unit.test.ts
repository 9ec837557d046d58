import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SetQrConfigBody, UnsetQrConfigBody } from '../src/qr-codes/qr-config.ts';
import { isJsonObject, validationMessages } from '../src/validation.ts';

const messagesOf = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input, { reportInput: true });
  return result.success ? [] : validationMessages(result.error.issues);
};

describe('validationMessages', () => {
  it('reports both rules a missing required string breaks', () => {
    expect(messagesOf(UnsetQrConfigBody, {})).toEqual([
      'token should not be empty',
      'token must be a string',
    ]);
  });

  it('reports only the type rule for a string of the wrong type', () => {
    expect(messagesOf(UnsetQrConfigBody, { token: 42 })).toEqual(['token must be a string']);
  });

  it('reports an empty or blank token as empty', () => {
    expect(messagesOf(UnsetQrConfigBody, { token: '' })).toEqual(['token should not be empty']);
    expect(messagesOf(UnsetQrConfigBody, { token: '   ' })).toEqual(['token should not be empty']);
  });

  it('reports a rule broken by several array elements once', () => {
    const messages = messagesOf(SetQrConfigBody, {
      token: 'QR1',
      amounts: [-1, 0, -3],
      singleUse: true,
    });
    expect(messages).toEqual(['each value in amounts must be a positive number']);
  });

  it('names every unknown property', () => {
    expect(messagesOf(UnsetQrConfigBody, { token: 'a', foo: 1, bar: 2 })).toEqual([
      'property foo should not exist',
      'property bar should not exist',
    ]);
  });

  it('reports a missing required array as not an array and empty', () => {
    expect(messagesOf(SetQrConfigBody, { token: 'QR1', singleUse: false })).toEqual([
      'amounts must be an array',
      'amounts must contain at least 1 element',
    ]);
  });

  it('tells JSON objects from arrays, null and scalars', () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject([])).toBe(false);
    expect(isJsonObject(null)).toBe(false);
    expect(isJsonObject('x')).toBe(false);
  });
});
