/**
 * The opaque cursor of the payments list: base64url of `<created_at in epoch
 * microseconds>:<id>` of the last payment of a page. Microseconds, not a JS Date: the
 * keyset must compare exactly what Postgres stored, and a millisecond Date would skip or
 * repeat payments created within the same millisecond.
 */
export interface ListCursor {
  /** created_at in microseconds since the epoch, as a decimal string (beyond 2^53 safe). */
  createdMicros: string;
  id: string;
}

const CURSOR = /^(\d{1,18}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(`${cursor.createdMicros}:${cursor.id}`).toString('base64url');
}

/** The cursor, or null when it is not one this service made (tampered or truncated). */
export function decodeCursor(value: string): ListCursor | null {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return null;
  const decoded = Buffer.from(value, 'base64url').toString('latin1');
  const match = CURSOR.exec(decoded);
  // Re-encoding must give the same text: base64url decoding forgives trailing bits.
  if (!match || encodeCursor({ createdMicros: match[1]!, id: match[2]! }) !== value) return null;
  return { createdMicros: match[1]!, id: match[2]! };
}
