import { describe, expect, it } from 'vitest';
import { decodeQrCodesCursor, encodeQrCodesCursor } from '../src/domain/qr-codes-cursor.ts';

describe('QR codes cursor', () => {
  it('round-trips microseconds and any token, colons and non-ASCII included', () => {
    for (const token of ['QR0123456789ABCDEFGHIJ', 'a:b:c', 'مقهى-1', ' x ']) {
      const cursor = { createdMicros: '1893456000123456', token };
      expect(decodeQrCodesCursor(encodeQrCodesCursor(cursor))).toEqual(cursor);
    }
  });

  it('refuses what it did not make', () => {
    const good = encodeQrCodesCursor({ createdMicros: '1', token: 'T' });
    for (const value of [
      '',
      'not base64!',
      Buffer.from('abc:T').toString('base64url'),
      Buffer.from('123').toString('base64url'),
      Buffer.from('123:').toString('base64url'),
      `${good}A`,
      Buffer.from([0x31, 0x3a, 0xff]).toString('base64url'),
    ]) {
      expect(decodeQrCodesCursor(value)).toBeNull();
    }
  });
});
