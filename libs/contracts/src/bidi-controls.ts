import type { z } from 'zod';

/**
 * The bidirectional controls that reorder the text after them: embeddings and overrides
 * (U+202A–U+202E) and isolates (U+2066–U+2069). A label `Facture \u202Efdp.exe` reads
 * "Facture exe.pdf" wherever it is laid out. The marks that only set a direction
 * (U+200E, U+200F, U+061C) reorder nothing around them and stay allowed: Arabic text and
 * Intl's Arabic amounts hold them.
 */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
const BIDI_CONTROLS = new RegExp(BIDI_CONTROL.source, 'g');

export const hasBidiControl = (text: string): boolean => BIDI_CONTROL.test(text);

/**
 * The text with each bidirectional control replaced by U+FFFD, for what is shown but
 * cannot be refused (a partner's product, text stored before the refusal): the reader
 * sees that something was there, and nothing is reordered. Plain text, so it works where
 * no markup can isolate it (an HTML <title>, a spreadsheet cell).
 */
export const replaceBidiControls = (
  text: string,
  by: string | ((control: string) => string) = '\uFFFD',
): string => text.replace(BIDI_CONTROLS, by as (control: string) => string);

/**
 * `schema` refusing bidirectional controls, with the message naming `field`: for the
 * labels and references merchants and operators set, which payers, merchants and
 * accountants read back.
 */
export function refusingBidiControls<S extends z.ZodType<string>>(schema: S, field: string): S {
  return schema.refine((text) => !hasBidiControl(text), {
    error: `${field} must not contain bidirectional control characters`,
  });
}
