import { dzdToCentimes } from '@dzpay/contracts';
import { parseTypedDzd } from './dzd-amount.ts';

export type RefundAmount =
  | { ok: true; centimes: number | undefined }
  | { ok: false; reason: 'invalid' | 'ambiguous' | 'tooLarge' };

/**
 * The refund form's amount, typed in DZD as a person writes it ("1500", "1 500,50",
 * "1.500,50", "1500.5"), as integer centimes; blank means all that is left (undefined:
 * the API's default). Refused: anything but a positive number with at most two
 * decimals, an amount that reads two ways ("1,500"), and more than is left to refund
 * (`remaining`, centimes).
 */
export function parseRefundAmount(typed: string | undefined, remaining: number): RefundAmount {
  if (typed === undefined || typed.trim() === '') return { ok: true, centimes: undefined };
  const read = parseTypedDzd(typed);
  if (!read.ok) return read;
  if (!(read.dzd > 0)) return { ok: false, reason: 'invalid' };
  const centimes = dzdToCentimes(read.dzd);
  if (centimes > remaining) return { ok: false, reason: 'tooLarge' };
  return { ok: true, centimes };
}
