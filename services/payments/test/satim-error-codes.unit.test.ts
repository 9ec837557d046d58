import { describe, expect, it } from 'vitest';
import { meaningOf } from '../src/card-network/satim-error-codes.ts';

describe('a BPC errorCode read by its operation', () => {
  it('says "order unknown" only for 6 on a call that names an order', () => {
    for (const operation of ['getOrderStatusExtended', 'confirmOrder', 'refund', 'reverse']) {
      expect(meaningOf(operation, '6')).toBe('order-unknown');
    }
    expect(meaningOf('register', '6')).toBe('unknown');
    expect(meaningOf('getLastOrdersForMerchants', '6')).toBe('unknown');
  });

  it('never reads access denied or a system error as "order unknown"', () => {
    for (const operation of ['register', 'getOrderStatusExtended', 'refund', 'reverse']) {
      expect(meaningOf(operation, '5')).toBe('access-denied');
    }
    expect(meaningOf('getOrderStatusExtended', '7')).toBe('system-error');
    expect(meaningOf('getOrderStatusExtended', '1')).toBe('invalid-request');
  });

  it('reads 7 on a refund or a reverse as "not allowed now", 1 on register as a used number', () => {
    expect(meaningOf('refund', '7')).toBe('not-allowed');
    expect(meaningOf('reverse', '7')).toBe('not-allowed');
    expect(meaningOf('register', '1')).toBe('duplicate-order-number');
  });

  it("takes SATIM's confirmOrder codes 2 (already confirmed) and 3 (declined) as verdicts", () => {
    expect(meaningOf('confirmOrder', '0')).toBe('done');
    expect(meaningOf('confirmOrder', '2')).toBe('done');
    expect(meaningOf('confirmOrder', '3')).toBe('done');
  });

  it('calls a code it does not know unknown, never done', () => {
    expect(meaningOf('refund', '99')).toBe('unknown');
    expect(meaningOf('status', '0')).toBe('done');
  });
});
