/**
 * The opaque cursor of the QR codes list: base64url of `<created_at in epoch
 * microseconds>:<token>` of the last code of a page. Microseconds, not a JS Date: the
 * keyset compares exactly what Postgres stored, and a millisecond Date would skip or
 * repeat codes created within the same millisecond. A token may hold `:` itself; the
 * microseconds are digits, so the first `:` is the separator.
 */
export interface QrCodesCursor {
  /** created_at in microseconds since the epoch, as a decimal string (beyond 2^53 safe). */
  createdMicros: string;
  token: string;
}

const CURSOR = /^(\d{1,18}):([\s\S]{1,255})$/;

export function encodeQrCodesCursor(cursor: QrCodesCursor): string {
  return Buffer.from(`${cursor.createdMicros}:${cursor.token}`, 'utf8').toString('base64url');
}

/** The cursor, or null when it is not one this service made (tampered or truncated). */
export function decodeQrCodesCursor(value: string): QrCodesCursor | null {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return null;
  const match = CURSOR.exec(Buffer.from(value, 'base64url').toString('utf8'));
  if (!match) return null;
  const cursor = { createdMicros: match[1]!, token: match[2]! };
  // Re-encoding must give the same text: base64url decoding forgives trailing bits and
  // invalid UTF-8 is replaced, so anything else is not ours.
  return encodeQrCodesCursor(cursor) === value ? cursor : null;
}
