import { describe, expect, it } from 'vitest';
import { escapeHtml } from '@dzpay/platform';
import { publicPage, signedInPage } from '../src/layout.ts';

/** Embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069). */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
const CONTROLS = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069';

describe('text from merchants and partners on the dashboard’s pages', () => {
  it('shows every bidirectional control as a mark, in the title and the body', () => {
    // A label or a reference taken before they were refused, or a payer's reference.
    const label = `Facture ${CONTROLS}fdp.exe`;
    const signedIn = signedInPage(
      {
        language: 'ar',
        merchantName: `Librairie \u202e`,
        mode: 'test',
        csrfToken: 'tok',
        path: '/dashboard/payment-links',
      },
      label,
      `<p>${escapeHtml(label)}</p>`,
    );
    const public_ = publicPage({ language: 'fr', title: label, body: '' });
    for (const html of [signedIn, public_]) {
      expect(html).not.toMatch(BIDI_CONTROL);
      expect(/<title>([^<]*)<\/title>/.exec(html)?.[1]).toBe(
        `Facture ${'\ufffd'.repeat(9)}fdp.exe · dzpay`,
      );
    }
    expect(signedIn).toContain(`<p>Facture ${'\ufffd'.repeat(9)}fdp.exe</p>`);
  });
});
