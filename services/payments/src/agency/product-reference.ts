import { cleanText } from '@dzpay/contracts';

/** The contract's longest reference (1 to 255 characters). */
const MAX_REFERENCE_LENGTH = 255;

/**
 * The reference a payer asked for, as dzpay asks the partner about it: Unicode NFC (a
 * letter typed precomposed or as letter + accent is one text) and trimmed (a space
 * pasted with it is no part of it). Nothing more is folded: letter case, compatibility
 * forms (fullwidth letters, ligatures) and accents reach the partner as typed, for the
 * partner's own lookup to match or not. Null when no product can have it: empty,
 * too long, a control character or broken Unicode, or `.`/`..` (which
 * {API_URL}/{reference} would read as the partner's own path).
 */
export function requestedReference(typed: string): string | null {
  const reference = typed.normalize('NFC').trim();
  if (reference.length === 0 || reference.length > MAX_REFERENCE_LENGTH) return null;
  if (!cleanText(reference) || /^\.{1,2}$/.test(reference)) return null;
  return reference;
}

export type CanonicalReference =
  { ok: true; value: string } | { ok: false; error: 'another-product' | 'unusable' };

/**
 * The reference a product is sold under: the one the partner answered, exactly as
 * answered. A partner whose lookup ignores case or Unicode forms answers `prod-ABC` to
 * `prod-abc`, so both spellings are one sale, with one lock, as the partner sees it.
 *
 * The answer must name what was asked, up to what a partner's lookup may fold
 * (`sameProductName`). Anything else is refused, not sold: keyed on the answer, the
 * payer would pay a product they did not ask for; keyed on the question, two
 * spellings of that other product would be two sales. An answer dzpay could not store
 * as sent (control characters, broken Unicode) is refused too.
 */
export function canonicalReference(requested: string, answered: string): CanonicalReference {
  if (!cleanText(answered)) return { ok: false, error: 'unusable' };
  if (!sameProductName(requested, answered)) return { ok: false, error: 'another-product' };
  return { ok: true, value: answered };
}

/**
 * Whether two references can name one product for a partner that ignores what
 * databases and SKU rules commonly ignore: letter case (full Unicode case, `ß` = `SS`),
 * compatibility forms (NFKC: fullwidth `ＡＢＣ` = `ABC`, `ﬁ` = `fi`), accents and other
 * combining marks (`cafe` = `café`, as MySQL's default `_ai_ci` collation reads them)
 * and surrounding whitespace. Inner spaces, punctuation and other letters still differ.
 */
export function sameProductName(a: string, b: string): boolean {
  return folded(a) === folded(b);
}

function folded(reference: string): string {
  return (
    reference
      // Upper then lower: the nearest JavaScript has to Unicode case folding (ß → SS → ss).
      .toUpperCase()
      .toLowerCase()
      // Case mapping may itself add combining marks (İ → i + dot): strip them after it.
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .normalize('NFKC')
      .trim()
  );
}
