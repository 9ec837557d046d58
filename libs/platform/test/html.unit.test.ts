import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../src/html.ts';

/** Embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069). */
const BIDI_CONTROLS = [
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
];

describe('escapeHtml', () => {
  it('escapes what HTML reads as markup, in content and quoted attributes', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
  });

  it.each(BIDI_CONTROLS.map((char) => [`U+${char.codePointAt(0)!.toString(16)}`, char]))(
    'shows %s as a mark that reorders nothing (a <title> holds no <bdi>)',
    (_name, char) => {
      expect(escapeHtml(`Facture ${char}fdp.exe`)).toBe('Facture \ufffdfdp.exe');
    },
  );

  it('leaves Arabic text and the marks that only set a direction as they are', () => {
    expect(escapeHtml('1.500,50 د.ج.\u200f \u200eA')).toBe('1.500,50 د.ج.\u200f \u200eA');
  });
});
