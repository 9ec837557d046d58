import { describe, expect, it } from 'vitest';
import { partnerError, productResponse, verifyDzpayRequest } from '../src/index.ts';

const now = new Date('2025-03-14T09:30:00.000Z');
const timestamp = String(Math.floor(now.getTime() / 1000));

describe('verifyDzpayRequest', () => {
  const check = (headers: Record<string, string | undefined>, toleranceSeconds?: number) =>
    verifyDzpayRequest(headers, 'api-secret', { now, toleranceSeconds });

  it('accepts the Bearer API secret with a fresh X-Timestamp', () => {
    expect(check({ authorization: 'Bearer api-secret', 'x-timestamp': timestamp })).toEqual({
      ok: true,
    });
  });

  it('rejects another secret, a prefix of the secret and a longer one', () => {
    for (const sent of ['other', 'api-', 'api-secret-and-more']) {
      expect(check({ authorization: `Bearer ${sent}`, 'x-timestamp': timestamp })).toMatchObject({
        ok: false,
        reason: 'bad_secret',
      });
    }
  });

  it('rejects a missing Authorization, a non-Bearer one, and a missing X-Timestamp', () => {
    for (const headers of [
      { 'x-timestamp': timestamp },
      { authorization: 'Basic YTpi', 'x-timestamp': timestamp },
      { authorization: 'Bearer api-secret' },
    ]) {
      expect(check(headers)).toMatchObject({ ok: false, reason: 'missing_headers' });
    }
  });

  it('rejects a timestamp 301 s away, in either direction', () => {
    for (const offset of [-301, 301]) {
      const headers = {
        authorization: 'Bearer api-secret',
        'x-timestamp': String(Number(timestamp) + offset),
      };
      expect(check(headers)).toMatchObject({ ok: false, reason: 'stale_timestamp' });
    }
    const headers = { authorization: 'Bearer api-secret', 'x-timestamp': String(+timestamp - 31) };
    expect(check(headers, 30)).toMatchObject({ ok: false, reason: 'stale_timestamp' });
  });
});

describe('productResponse', () => {
  it('answers 200 with the product, currency DZD filled in', () => {
    expect(productResponse({ reference: 'BOOK-42', amount: 1500.5, label: 'Nedjma' })).toEqual({
      status: 200,
      body: { reference: 'BOOK-42', amount: 1500.5, currency: 'DZD', label: 'Nedjma' },
    });
  });

  it('refuses a product dzpay would refuse: three decimals, nothing to pay, a long label', () => {
    expect(() => productResponse({ reference: 'B', amount: 1.005 })).toThrow(/two decimals/);
    expect(() => productResponse({ reference: 'B', amount: 0 })).toThrow();
    expect(() => productResponse({ reference: 'B', amount: 1, label: 'x'.repeat(201) })).toThrow();
  });

  it('accepts amounts that only look imprecise in binary, like 0.29', () => {
    expect(productResponse({ reference: 'B', amount: 0.29 }).body.amount).toBe(0.29);
  });
});

describe('partnerError', () => {
  it('pairs each code with its HTTP status in the partner error shape', () => {
    expect(partnerError('NOT_FOUND', 'no such book')).toEqual({
      status: 404,
      body: { error: 'NOT_FOUND', errorMessage: 'no such book' },
    });
    expect(partnerError('ALREADY_PAID', 'sold').status).toBe(409);
    expect(partnerError('SERVICE_UNAVAILABLE', 'maintenance').status).toBe(503);
  });
});
