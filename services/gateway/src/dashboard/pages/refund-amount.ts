import { dzdToCentimes, hasAtMostTwoDecimals } from '@dzpay/contracts';

export type RefundAmount =
  { ok: true; centimes: number | undefined } | { ok: false; reason: 'invalid' | 'tooLarge' };

/**
 * The refund form's amount, typed in DZD as a person writes it ("1500", "1 500,50",
 * "1500.5"), as integer centimes; blank means all that is left (undefined: the API's
 * default). Refused: anything but a positive number with at most two decimals, and
 * more than is left to refund (`remaining`, centimes).
 */
export function parseRefundAmount(typed: string | undefined, remaining: number): RefundAmount {
  if (typed === undefined || typed.trim() === '') return { ok: true, centimes: undefined };
  // Spaces (also the no-break ones of French grouping) go; a comma is the decimal mark.
  const normalized = typed.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  if (!/^\d{1,9}(\.\d{1,2})?$/.test(normalized)) return { ok: false, reason: 'invalid' };
  const dzd = Number(normalized);
  if (!(dzd > 0) || !hasAtMostTwoDecimals(dzd)) return { ok: false, reason: 'invalid' };
  const centimes = dzdToCentimes(dzd);
  if (centimes > remaining) return { ok: false, reason: 'tooLarge' };
  return { ok: true, centimes };
}
