import { LOCALES, type Language } from '@dzpay/contracts';

/** A date and time for tables, in the page's language (Africa/Algiers time). */
export function formatDateTime(date: Date, language: Language): string {
  return new Intl.DateTimeFormat(LOCALES[language], {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'Africa/Algiers',
    hourCycle: 'h23',
  }).format(date);
}
