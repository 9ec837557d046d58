import { describe, expect, it } from 'vitest';
import { checkoutStatusOf } from '../src/domain/checkout-status.ts';
import { likePrefix, prefixUpperBound, storedStatusOf } from '../src/listing/list-filter.ts';
import { decodeCursor, encodeCursor } from '../src/domain/payments-cursor.ts';

const ID = '3f1c2b9e-7a41-4d0b-9c55-2e8f6a1d4b70';

describe('the list cursor', () => {
  it('round-trips microseconds and id, and refuses anything it did not make', () => {
    const cursor = { createdMicros: '1795260400123456', id: ID };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    const good = encodeCursor(cursor);
    for (const bad of ['', 'x', `${good}A`, good.slice(1), `${good}=`, 'a+b/', 'MToy']) {
      expect(decodeCursor(bad), bad).toBeNull();
    }
    expect(decodeCursor(Buffer.from(`12:${ID.toUpperCase()}`).toString('base64url'))).toBeNull();
  });
});

describe('list filters', () => {
  it('maps merchant-facing statuses to stored ones', () => {
    expect(storedStatusOf('created')).toEqual({ status: 'pending', reason: 'any' });
    expect(storedStatusOf('cancelled')).toEqual({ status: 'failed', reason: { is: 'cancelled' } });
    expect(storedStatusOf('failed')).toEqual({
      status: 'failed',
      reason: { notIn: ['expired', 'cancelled'] },
    });
    expect(checkoutStatusOf('failed', 'cancelled')).toBe('cancelled');
  });

  it('escapes LIKE wildcards and bounds a prefix byte-wise', () => {
    expect(likePrefix('A_B%\\')).toBe('A\\_B\\%\\\\%');
    expect(prefixUpperBound('ORD-0')).toBe('ORD-1');
    expect(prefixUpperBound('é')).toBe('ê');
    expect(prefixUpperBound('a\u{D7FF}')).toBe('a\u{E000}');
    expect(prefixUpperBound('a\u{10FFFF}')).toBeNull();
    expect(prefixUpperBound('a😀')).toBe('a😁');
  });
});
