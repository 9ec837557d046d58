import type { ReceiptPayment } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { renderReceipt } from '../src/domain/receipt.ts';
import { auditableRecipient, withoutAddress } from '../src/domain/recipient.ts';

const payment: ReceiptPayment = {
  id: '2f1c3a52-6a1e-4a55-9d0f-0f4b8a6e2c11',
  reference: 'CMD-1042',
  amount: 150_050,
  fees: 50,
  total: 155_050,
  currency: 'DZD',
  language: 'fr',
  status: 'success',
  orderId: 'b7c0e6a4-sandbox',
  approvalCode: '482910',
  maskedPan: '628058******0009',
  // 22:30 UTC is 23:30 in Algiers (UTC+1, no daylight saving).
  paidAt: '2026-11-21T22:30:00.000Z',
};

const spaced = (text: string) => text.replace(/\s/g, ' ');

describe('renderReceipt', () => {
  it('writes French amounts, fee in dinars and Algiers time', () => {
    const receipt = renderReceipt(payment, 'Librairie El Fath', 'fr');
    expect(receipt.subject).toBe('Votre reçu de paiement – Librairie El Fath');
    const text = spaced(receipt.text);
    expect(text).toContain('Montant: 1 500,50 DA');
    expect(text).toContain('Frais: 50,00 DA');
    expect(text).toContain('Total payé: 1 550,50 DA');
    expect(text).toContain('21 novembre 2026 à 23:30');
    expect(text).toContain("Code d'autorisation: 482910");
    expect(text).toContain('Carte: 628058******0009');
    expect(text).toContain(`Identifiant du paiement: ${payment.id}`);
  });

  it('writes English and Arabic in their own formats, Arabic right to left', () => {
    const english = renderReceipt(payment, 'Shop', 'en');
    expect(spaced(english.text)).toContain('Total paid: DZD 1,550.50');
    expect(spaced(english.text)).toContain('21 November 2026 at 23:30');
    expect(english.html).toContain('<html lang="en" dir="ltr">');

    const arabic = renderReceipt(payment, 'Shop', 'ar');
    expect(arabic.html).toContain('<html lang="ar" dir="rtl">');
    expect(arabic.text).toContain('1.550,50');
    expect(arabic.text).toContain('د.ج.');
    expect(arabic.text).toContain('نوفمبر 2026');
    // Identifiers keep their left-to-right order inside the Arabic layout.
    expect(arabic.html).toContain('<bdi dir="ltr">628058******0009</bdi>');
  });

  it('escapes what merchants and payers wrote, in the HTML part only', () => {
    const receipt = renderReceipt(
      { ...payment, reference: '<script>alert(1)</script>' },
      'Tom & "Jerry"',
      'en',
    );
    expect(receipt.html).not.toContain('<script>');
    expect(receipt.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(receipt.html).toContain('Tom &amp; &quot;Jerry&quot;');
    expect(receipt.text).toContain('Reference: <script>alert(1)</script>');
  });

  it('fetches nothing: no image, stylesheet, font, script or link', () => {
    for (const language of ['ar', 'fr', 'en'] as const) {
      const { html } = renderReceipt(payment, 'Shop', language);
      expect(html).not.toMatch(/<img|<link|<script|url\(|src=|href=/i);
    }
  });

  it('shows a dash for a fact the card network did not give', () => {
    const receipt = renderReceipt({ ...payment, approvalCode: null, maskedPan: null }, 'S', 'en');
    expect(receipt.text).toContain('Approval code: –');
    expect(receipt.text).toContain('Card: –');
  });

  it('formats centimes exactly, however large', () => {
    const receipt = renderReceipt(
      { ...payment, amount: 100_000_000, fees: 0, total: 100_000_001 },
      'S',
      'en',
    );
    expect(spaced(receipt.text)).toContain('Amount: DZD 1,000,000.00');
    expect(spaced(receipt.text)).toContain('Total paid: DZD 1,000,000.01');
  });
});

describe('auditableRecipient', () => {
  it('keeps the first character and the domain only', () => {
    expect(auditableRecipient('salim.benali@Example.DZ')).toBe('s***@example.dz');
    expect(auditableRecipient('"a@b"@example.dz')).toBe('"***@example.dz');
    expect(auditableRecipient('ü@example.dz')).toBe('ü***@example.dz');
  });
});

describe('withoutAddress', () => {
  it('replaces every echo of the address in a server reply, whatever its case', () => {
    expect(
      withoutAddress(
        '550 5.1.1 <Payer.One+x@ex-ample.dz>: unknown; payer.one+x@EX-AMPLE.dz',
        'payer.one+x@ex-ample.dz',
      ),
    ).toBe('550 5.1.1 <p***@ex-ample.dz>: unknown; p***@ex-ample.dz');
  });
});
