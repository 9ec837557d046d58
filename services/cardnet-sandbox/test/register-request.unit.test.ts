import { describe, expect, it } from 'vitest';
import { parseRegisterRequest } from '../src/domain/register-request.ts';

const params = {
  orderNumber: 'DZ-0001',
  amount: '150000',
  currency: '012',
  returnUrl: 'https://shop.example/back?cart=7',
};

describe('parseRegisterRequest', () => {
  it('applies the defaults: failUrl = returnUrl, FR, 1200 s', () => {
    expect(parseRegisterRequest(params)).toEqual({
      ok: true,
      value: {
        orderNumber: params.orderNumber,
        amount: 150_000,
        returnUrl: params.returnUrl,
        failUrl: params.returnUrl,
        language: 'fr',
        description: '',
        sessionTimeoutSecs: 1200,
        jsonParams: {},
      },
    });
  });

  it('reads language in any case and jsonParams as a JSON object', () => {
    const parsed = parseRegisterRequest({
      ...params,
      language: 'AR',
      jsonParams: '{"force_terminal_id":"E010901","udf1":"ref-9"}',
    });
    expect(parsed).toMatchObject({
      ok: true,
      value: { language: 'ar', jsonParams: { force_terminal_id: 'E010901', udf1: 'ref-9' } },
    });
  });

  it.each(['orderNumber', 'amount', 'currency', 'returnUrl'])(
    'answers errorCode 4 when %s is missing or empty',
    (name) => {
      expect(parseRegisterRequest({ ...params, [name]: '' })).toMatchObject({
        ok: false,
        error: { errorCode: '4' },
      });
    },
  );

  it.each([
    ['an order number over 32 characters', { orderNumber: 'x'.repeat(33) }],
    ['a fractional amount', { amount: '10.5' }],
    ['a zero amount', { amount: '0' }],
    ['a relative returnUrl', { returnUrl: '/back' }],
    ['a javascript: failUrl', { failUrl: 'javascript:alert(1)' }],
    ['an unknown language', { language: 'DE' }],
    ['a session timeout under 600 s', { sessionTimeoutSecs: '300' }],
    ['jsonParams that is not an object of strings', { jsonParams: '{"udf1":1}' }],
    ['jsonParams that is not JSON', { jsonParams: 'udf1=x' }],
  ])('answers errorCode 5, an incorrect parameter value, for %s', (_label, change) => {
    expect(parseRegisterRequest({ ...params, ...change })).toMatchObject({
      ok: false,
      error: { errorCode: '5' },
    });
  });

  it('answers errorCode 3, unknown currency, for a currency other than 012', () => {
    expect(parseRegisterRequest({ ...params, currency: '978' })).toMatchObject({
      ok: false,
      error: { errorCode: '3' },
    });
  });
});
