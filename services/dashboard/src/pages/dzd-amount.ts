/** A DZD amount as a person typed it, read or refused. */
export type TypedDzd =
  | { ok: true; dzd: number }
  /** ambiguous: "1,500" or "1.500" is 1 500 DZD to one reader and 1,50 DZD to another. */
  | { ok: false; reason: 'invalid' | 'ambiguous' };

/**
 * Reads "1500", "1 500,50", "1.500,50", "1,500.50", "1500.5" into DZD (at most two
 * decimals; spaces, also French no-break ones, group digits). With both marks, the last
 * one is the decimal mark and the other groups by three. With one mark used once, it is
 * decimal when one or two digits follow; three digits after a single mark ("1,500") mean
 * 1 500 in English and 1,5 in French, so such an amount is refused as ambiguous rather
 * than guessed: money is never read a thousand times off.
 */
export function parseTypedDzd(typed: string): TypedDzd {
  const text = withoutCurrency(typed).replace(/[\s\u00a0\u202f]/g, '');
  if (!/^[\d.,]+$/.test(text)) return { ok: false, reason: 'invalid' };
  const marks = [...text.matchAll(/[.,]/g)].map((m) => ({ mark: m[0], at: m.index }));
  const kinds = new Set(marks.map((m) => m.mark));
  let integer = text;
  let decimals = '';
  if (kinds.size === 2) {
    const last = marks.at(-1)!;
    if (marks.filter((m) => m.mark === last.mark).length > 1)
      return { ok: false, reason: 'invalid' };
    integer = text.slice(0, last.at);
    decimals = text.slice(last.at + 1);
    if (!groupedByThree(integer, marks[0]!.mark)) return { ok: false, reason: 'invalid' };
    integer = integer.replaceAll(marks[0]!.mark, '');
  } else if (marks.length > 1) {
    if (!groupedByThree(text, marks[0]!.mark)) return { ok: false, reason: 'invalid' };
    integer = text.replaceAll(marks[0]!.mark, '');
  } else if (marks.length === 1) {
    const [whole, fraction] = text.split(marks[0]!.mark) as [string, string];
    if (fraction.length === 3 && whole.length > 0) return { ok: false, reason: 'ambiguous' };
    integer = whole;
    decimals = fraction;
  }
  if (!/^\d{1,12}$/.test(integer) || !/^\d{0,2}$/.test(decimals)) {
    return { ok: false, reason: 'invalid' };
  }
  return { ok: true, dzd: Number(`${integer}.${decimals || '0'}`) };
}

/** "1.500.000" with `.`: digits in groups of three after a first group of one to three. */
function groupedByThree(text: string, mark: string): boolean {
  const [first, ...rest] = text.split(mark);
  return /^\d{1,3}$/.test(first!) && rest.every((group) => /^\d{3}$/.test(group));
}

/**
 * The amount alone, as the pages write it in every language ("1 500,50 DA",
 * "DZD 1,500.50", "‏1.500,50 د.ج.‏"): copied back into a form, it must read as typed.
 * Direction marks and the currency's names go; a trailing period belongs to "د.ج.".
 */
function withoutCurrency(typed: string): string {
  return typed
    .replace(/[\u200e\u200f\u061c]/gu, '')
    .replace(/د\.ج\.?|دج|\bDZD\b|\bDA\b/giu, '')
    .trim();
}
