import { LOCALES, type Language } from '@dzpay/contracts';

/**
 * A date and time as every dashboard page writes one: the page's language, Algiers time,
 * and a 24-hour clock in every language (fr-DZ and ar-DZ would write 12:39 PM and م).
 */
export function formatDateTime(date: Date, language: Language): string {
  return new Intl.DateTimeFormat(LOCALES[language], {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'Africa/Algiers',
    hourCycle: 'h23',
  }).format(date);
}
