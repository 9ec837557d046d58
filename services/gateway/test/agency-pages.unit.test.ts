import type { PartnerProduct } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { productPage } from '../src/pages/agency-pages.ts';

const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

describe('a partner’s product on the payer’s page', () => {
  it('shows a label and a reference with bidirectional controls without their reordering', () => {
    // The partner's server answers what it likes: nothing to refuse with a 400 here.
    const product: PartnerProduct = {
      reference: 'FAC-\u2066042\u2069',
      amount: 1500,
      currency: 'DZD',
      label: 'Facture \u202efdp.exe <b>',
    };
    const { html } = productPage(
      { merchantName: 'Librairie \u202bSétif', product, amount: 150_000, fee: 5_000 },
      '/pay/m/FAC',
      'fr',
    );
    expect(html).not.toMatch(BIDI_CONTROL);
    expect(html).toContain('Facture \ufffdfdp.exe &lt;b&gt;');
    expect(html).toContain('FAC-\ufffd042\ufffd');
    expect(html).toContain('<h1>Librairie \ufffdSétif</h1>');
  });
});
