import { dzdToCentimes } from '@dzpay/contracts';
import { parseTypedDzd } from './dzd-amount.ts';

export type RefundAmount =
  | { ok: true; centimes: number }
  | { ok: false; reason: 'missing' | 'invalid' | 'ambiguous' | 'tooLarge' };

/**
 * The refund form's amount, typed in DZD as a person writes it ("1500", "1 500,50",
 * "1.500,50", "1500.5", or copied from the page: "‏1.500,50 د.ج.‏", "1 500,50 DA"), as
 * integer centimes. Refused: a blank (a refund names its amount: nothing is refunded
 * "by default"), anything but a positive number with at most two decimals, an amount
 * that reads two ways ("1,500"), and more than is left to refund (`remaining`, centimes).
 */
export function parseRefundAmount(typed: string | undefined, remaining: number): RefundAmount {
  if (typed === undefined || typed.trim() === '') return { ok: false, reason: 'missing' };
  const read = parseTypedDzd(typed);
  if (!read.ok) return read;
  if (!(read.dzd > 0)) return { ok: false, reason: 'invalid' };
  const centimes = dzdToCentimes(read.dzd);
  if (centimes > remaining) return { ok: false, reason: 'tooLarge' };
  return { ok: true, centimes };
}
