import { formatDzd, LOCALES, type Language } from '@dzpay/contracts';

/**
 * Numbers, amounts and dates as a merchant reads them in the dashboard's language.
 * Times are shown in Algeria's time zone: the merchants are there, whatever the server's.
 */
const DASHBOARD_TIME_ZONE = 'Africa/Algiers';

/** Integer centimes as DZD ("1 500,50 DA", "DZD 1,500.50"). */
export function money(centimes: number, language: Language): string {
  return formatDzd(centimes, language);
}

export function count(value: number, language: Language): string {
  return new Intl.NumberFormat(LOCALES[language]).format(value);
}

export function dateTime(iso: string, language: Language): string {
  return new Intl.DateTimeFormat(LOCALES[language], {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: DASHBOARD_TIME_ZONE,
  }).format(new Date(iso));
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
