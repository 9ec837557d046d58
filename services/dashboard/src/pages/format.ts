import { formatDzd, LOCALES, type Language } from '@dzpay/contracts';
import { formatDateTime } from '../format.ts';

/**
 * Numbers, amounts and dates as a merchant reads them in the dashboard's language.
 * Times are shown in Algeria's time zone (../format.ts): the merchants are there,
 * whatever the server's.
 */

/** Integer centimes as DZD ("1 500,50 DA", "DZD 1,500.50"). */
export function money(centimes: number, language: Language): string {
  return formatDzd(centimes, language);
}

export function count(value: number, language: Language): string {
  return new Intl.NumberFormat(LOCALES[language]).format(value);
}

/** An instant the API gives (ISO 8601), as every dashboard page writes one. */
export function dateTime(iso: string, language: Language): string {
  return formatDateTime(new Date(iso), language);
}

/** A UTC day (`2026-11-21`), as the daily report counts them. */
export function day(isoDay: string, language: Language): string {
  return new Intl.DateTimeFormat(LOCALES[language], {
    dateStyle: 'medium',
    timeZone: 'UTC',
  }).format(new Date(`${isoDay.slice(0, 10)}T00:00:00Z`));
}

/** A short UTC day for chart labels ("21/11", "21 nov."). */
export function shortDay(isoDay: string, language: Language): string {
  return new Intl.DateTimeFormat(LOCALES[language], {
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  }).format(new Date(`${isoDay.slice(0, 10)}T00:00:00Z`));
}
