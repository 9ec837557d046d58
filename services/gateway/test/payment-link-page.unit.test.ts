import type { PaymentLinkPublicView } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { typedCentimes } from '../src/pages/payment-link-amount.ts';
import { paymentLinkPage, paymentLinkProblemPage } from '../src/pages/payment-link-page.ts';

const fixed: PaymentLinkPublicView = {
  merchantId: '197a5a98-64b4-442d-bd05-410519263304',
  mode: 'test',
  label: 'Cours <piano>',
  amount: 150_050,
  minAmount: null,
  maxAmount: null,
  language: 'fr',
  state: 'active',
  expiresAt: null,
  busyUntil: null,
};
const open = { ...fixed, amount: null, minAmount: 10_000, maxAmount: 50_000 };
const view = {
  merchantName: 'Librairie',
  fee: 5_000,
  path: '/link/pl_AAAAAAAAAAAAAAAAAAAAAA',
  attempt: 'n0nce_of_this_render_1',
};

describe('the amount a payer types on a link’s page', () => {
  it('reads a number box’s value, or a decimal comma, into centimes', () => {
    expect(typedCentimes('1500')).toBe(150_000);
    expect(typedCentimes('1500.5')).toBe(150_050);
    expect(typedCentimes('1 500,50')).toBe(150_050);
  });

  it('refuses what is no amount rather than guessing', () => {
    for (const typed of ['', '0', '1.505', '1,500.50', '-5', '1e3', 'abc', '12345678901'])
      expect(typedCentimes(typed), typed).toBeNull();
  });
});

describe('a link’s page', () => {
  it('shows a label’s bidirectional controls as marks, in its title and its body', () => {
    const controls = [
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
    for (const control of controls) {
      // "Facture exe.pdf" where a browser lays the override out.
      const label = `Facture ${control}fdp.exe`;
      const { html } = paymentLinkPage({ ...fixed, label }, view, 'fr');
      const title = /<title>([^<]*)<\/title>/.exec(html)?.[1];
      expect(title, `U+${control.codePointAt(0)!.toString(16)}`).toBe(
        'Facture \ufffdfdp.exe · Librairie · dzpay',
      );
      expect(html).not.toContain(control);
      expect(html.split('<body>')[1]).toContain('Facture \ufffdfdp.exe');
    }
  });

  it('a fixed amount: amount, fee and total on the pay button, text escaped', () => {
    const { html, csp } = paymentLinkPage(fixed, view, 'fr');
    expect(html).toContain('Cours &lt;piano&gt;');
    expect(html).toMatch(/Payer par carte CIB \/ Edahabia · 1\s550,50/);
    expect(html).toContain('action="/link/pl_AAAAAAAAAAAAAAAAAAAAAA?lang=fr"');
    expect(html).not.toContain('name="amount"');
    expect(html).toContain('src="/link/pl_AAAAAAAAAAAAAAAAAAAAAA/qr"');
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('the payer’s amount: a labelled number box with the bounds, right to left in Arabic', () => {
    const { html } = paymentLinkPage(open, { ...view, typed: '5', refused: true }, 'ar');
    expect(html).toContain('dir="rtl"');
    expect(html).toContain('<label for="amount">');
    expect(html).toContain('min="100" max="500" step="0.01"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('role="alert"');
    expect(html).toContain('value="5"');
    // The Arabic currency's own period is never doubled at a sentence's end.
    expect(html).not.toMatch(/ج\.[\u200e\u200f]*\./u);
  });

  it('names its render in a hidden field of the form, whatever the amount', () => {
    for (const link of [fixed, open]) {
      expect(paymentLinkPage(link, view, 'fr').html).toContain(
        '<input type="hidden" name="attempt" value="n0nce_of_this_render_1">',
      );
    }
  });

  it('a fixed amount the merchant no longer takes: said in every language', () => {
    const texts = {
      fr: 'Ce marchand ne peut pas recevoir ce montant pour le moment.',
      en: 'This merchant cannot take this amount right now.',
      ar: 'لا يمكن لهذا التاجر استقبال هذا المبلغ حاليًا.',
    };
    for (const [language, text] of Object.entries(texts) as [keyof typeof texts, string][]) {
      const { html } = paymentLinkProblemPage('amountUnavailable', language, view);
      expect(html).toContain(text);
      expect(html).not.toContain('name="attempt"');
    }
  });

  it('no answer in time: the same form to send again, its nonce and amount kept', () => {
    const { html } = paymentLinkProblemPage('notReady', 'en', {
      ...view,
      retry: { attempt: 'n0nce_of_this_render_1', amount: '150,50' },
    });
    expect(html).toContain('The payment could not be prepared in time.');
    expect(html).toContain('action="/link/pl_AAAAAAAAAAAAAAAAAAAAAA?lang=en"');
    expect(html).toContain('name="attempt" value="n0nce_of_this_render_1"');
    expect(html).toContain('name="amount" value="150,50"');
  });

  it('says why a link takes no payment, and when a busy one may free up', () => {
    expect(paymentLinkProblemPage('expired', 'en').html).toContain(
      'This payment link has expired.',
    );
    const busy = paymentLinkProblemPage('beingPaid', 'fr', { retryAt: '2026-11-21T10:15:00Z' });
    expect(busy.html).toContain('11:15');
  });
});
