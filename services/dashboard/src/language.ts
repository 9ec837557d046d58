import type { Language } from '@dzpay/contracts';

const LANGUAGES: readonly Language[] = ['ar', 'fr', 'en'];

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The language of a page: an explicit choice (the session's, or ?lang= before sign-in)
 * wins; otherwise the browser's Accept-Language, best weight first; French by default
 * (the language most merchants in Algeria work in).
 */
export function chooseLanguage(choice: unknown, acceptLanguage: string | undefined): Language {
  if (isLanguage(choice)) return choice;
  return fromAcceptLanguage(acceptLanguage) ?? 'fr';
}

/** The first of ar/fr/en the header names, by quality (`ar-DZ;q=0.8` counts as ar). */
export function fromAcceptLanguage(header: string | undefined): Language | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
      const quality = q ? Number(q[1]) : 1;
      return {
        language: tag.trim().toLowerCase().split('-')[0] ?? '',
        quality: Number.isFinite(quality) ? quality : 0,
        index,
      };
    })
    .filter((entry) => entry.quality > 0 && isLanguage(entry.language))
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  return (ranked[0]?.language as Language | undefined) ?? null;
}

export function directionOf(language: Language): 'rtl' | 'ltr' {
  return language === 'ar' ? 'rtl' : 'ltr';
}
