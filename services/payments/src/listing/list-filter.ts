import type { CheckoutStatus, PaymentStatus } from '@dzpay/contracts';
import { CANCELLED, EXPIRED } from '../domain/checkout-status.ts';

/**
 * The stored rows a merchant-facing status names: `created` is pending, and `failed`,
 * `expired` and `cancelled` are all `failed`, told apart by the failure reason.
 */
export type StoredStatusFilter =
  | { status: PaymentStatus; reason: 'any' }
  | { status: 'failed'; reason: { is: string } }
  | { status: 'failed'; reason: { notIn: string[] } };

export function storedStatusOf(status: CheckoutStatus): StoredStatusFilter {
  switch (status) {
    case 'created':
      return { status: 'pending', reason: 'any' };
    case 'expired':
      return { status: 'failed', reason: { is: EXPIRED } };
    case 'cancelled':
      return { status: 'failed', reason: { is: CANCELLED } };
    case 'failed':
      return { status: 'failed', reason: { notIn: [EXPIRED, CANCELLED] } };
    default:
      return { status, reason: 'any' };
  }
}

/** `prefix%` for LIKE, its own wildcards and the escape character taken literally. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * The smallest string above every string that starts with `prefix`, in byte-wise
 * (UTF-8, text_pattern_ops) order: the prefix with its last code point raised by one.
 * With `reference ~>=~ prefix and reference ~<~ bound` an index range finds the
 * matches even in a prepared statement's generic plan, which LIKE with a parameter
 * cannot. Null when no such bound exists (the prefix ends with U+10FFFF).
 */
export function prefixUpperBound(prefix: string): string | null {
  const points = [...prefix];
  const last = points.pop();
  if (last === undefined) return null;
  let next = last.codePointAt(0)! + 1;
  if (next >= 0xd800 && next <= 0xdfff) next = 0xe000; // surrogates are no characters
  if (next > 0x10ffff) return null;
  return points.join('') + String.fromCodePoint(next);
}
