import type { Language } from './payments/payment.ts';

/**
 * Money crosses our edges as DZD numbers (QR amounts, status amounts) or integer
 * centimes (the payments API); inside dzpay it is always integer centimes.
 */

const CENTIMES_PER_DINAR = 100;

/**
 * Whether a DZD amount has at most two decimals (1.5 and 1.25 do, 1.005 and 1e-9 do
 * not): the amount must be exactly the number its whole centimes print as. Binary
 * floating point makes 0.29 * 100 = 28.999999999999996, which rounds back to 0.29.
 */
export function hasAtMostTwoDecimals(dzd: number): boolean {
  return Math.round(dzd * CENTIMES_PER_DINAR) / CENTIMES_PER_DINAR === dzd;
}

/** Converts a DZD amount that has at most two decimals to integer centimes. */
export function dzdToCentimes(dzd: number): number {
  return Math.round(dzd * CENTIMES_PER_DINAR);
}

/** Converts integer centimes back to a DZD number for the edges that speak DZD. */
export function centimesToDzd(centimes: number): number {
  return centimes / CENTIMES_PER_DINAR;
}

/** The locale dzpay formats numbers and dates in, per payer language. */
export const LOCALES: Record<Language, string> = { ar: 'ar-DZ', fr: 'fr-DZ', en: 'en-GB' };

/**
 * Centimes as a payer reads DZD in their language: "1 500,50 DA", "DZD 1,500.50",
 * "1.500,50 د.ج.". Formatted from a decimal string, so no binary fraction is rounded.
 */
export function formatDzd(centimes: number, language: Language): string {
  const sign = centimes < 0 ? '-' : '';
  const magnitude = Math.abs(centimes);
  const whole = Math.trunc(magnitude / CENTIMES_PER_DINAR);
  const decimal = `${sign}${whole}.${String(magnitude % CENTIMES_PER_DINAR).padStart(2, '0')}`;
  return new Intl.NumberFormat(LOCALES[language], {
    style: 'currency',
    currency: 'DZD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(decimal as `${number}`);
}
