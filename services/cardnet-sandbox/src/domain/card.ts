/**
 * Card data as the payer types it on the form. The CVV is only ever held in this value
 * while the form is judged: it is never stored on an order nor logged.
 */
export interface CardInput {
  pan: string;
  expiryMonth: number;
  /** Four digits (2028), from the two the payer typed. */
  expiryYear: number;
  cvv: string;
  cardholderName: string;
}

export type CardFormError = 'pan' | 'expiry' | 'cvv' | 'name';

export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** Luhn (mod 10) check digit validation, as every card form does before sending. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** First 6 + ** + last 4: the only form of a PAN that may be stored, shown or logged. */
export function maskPan(pan: string): string {
  return `${pan.slice(0, 6)}**${pan.slice(-4)}`;
}

/** BPC reports the expiry as YYYYMM (`202812`). */
export function expirationOf(card: Pick<CardInput, 'expiryMonth' | 'expiryYear'>): string {
  return `${card.expiryYear}${String(card.expiryMonth).padStart(2, '0')}`;
}

/** A card is valid until the last day of its expiry month. */
export function isExpired(card: Pick<CardInput, 'expiryMonth' | 'expiryYear'>, now: Date): boolean {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  return card.expiryYear < year || (card.expiryYear === year && card.expiryMonth < month);
}

/**
 * Validates the fields of the card form. The first problem found is reported, and the
 * form is shown again: an invalid form never decides the order.
 */
export function parseCardForm(
  fields: Record<string, string | undefined>,
): Result<CardInput, CardFormError> {
  const pan = (fields.pan ?? '').replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(pan) || !luhnValid(pan)) return { ok: false, error: 'pan' };
  const expiry = /^(\d{2})\s*\/?\s*(\d{2})$/.exec((fields.expiry ?? '').trim());
  const expiryMonth = Number(expiry?.[1]);
  if (!expiry || expiryMonth < 1 || expiryMonth > 12) return { ok: false, error: 'expiry' };
  const cvv = (fields.cvv ?? '').trim();
  if (!/^\d{3}$/.test(cvv)) return { ok: false, error: 'cvv' };
  const cardholderName = (fields.cardholderName ?? '').trim().replace(/\s+/g, ' ');
  // Embossed names are short and printable; control characters have no place in them.
  if (cardholderName.length === 0 || cardholderName.length > 64 || /\p{Cc}/u.test(cardholderName))
    return { ok: false, error: 'name' };
  return {
    ok: true,
    value: { pan, expiryMonth, expiryYear: 2000 + Number(expiry[2]), cvv, cardholderName },
  };
}
