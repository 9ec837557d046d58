import { describe, expect, it } from 'vitest';
import {
  canonicalReference,
  requestedReference,
  sameProductName,
} from '../src/agency/product-reference.ts';

const NFC = 'caf\u00e9-1';
const NFD = 'cafe\u0301-1';

describe('requestedReference: what dzpay asks the partner about', () => {
  it('asks one text for a letter typed precomposed or as letter + accent (NFC)', () => {
    expect(requestedReference(NFD)).toBe(NFC);
    expect(requestedReference(NFC)).toBe(NFC);
  });

  it('trims whitespace of every Unicode kind around the reference, not inside it', () => {
    expect(requestedReference(' \t\u00a0BOOK 42\u3000\n')).toBe('BOOK 42');
  });

  it('keeps letter case, fullwidth letters and accents as typed: the partner decides', () => {
    expect(requestedReference('prod-ABC')).toBe('prod-ABC');
    expect(requestedReference('\uff30ROD')).toBe('\uff30ROD');
    expect(requestedReference(NFC)).not.toBe('cafe-1');
  });

  it('is no product when nothing is left, too long, not clean text, or a path step', () => {
    expect(requestedReference('   ')).toBeNull();
    expect(requestedReference('x'.repeat(256))).toBeNull();
    expect(requestedReference(`${'x'.repeat(255)} `)).toBe('x'.repeat(255));
    expect(requestedReference('A\u0000B')).toBeNull();
    expect(requestedReference('A\ud800B')).toBeNull();
    // Trimmed, " .. " would ask the partner's parent path.
    expect(requestedReference(' .. ')).toBeNull();
    expect(requestedReference('.')).toBeNull();
    expect(requestedReference('...')).toBe('...');
  });
});

describe('canonicalReference: the reference a product is sold under', () => {
  it("is the partner's answer, exactly as answered, when it names what was asked", () => {
    expect(canonicalReference('prod-abc', 'prod-ABC')).toEqual({ ok: true, value: 'prod-ABC' });
    expect(canonicalReference('prod-ABC', 'prod-ABC')).toEqual({ ok: true, value: 'prod-ABC' });
    // A partner that keeps its references decomposed gets them back decomposed.
    expect(canonicalReference(NFC, NFD)).toEqual({ ok: true, value: NFD });
  });

  it('refuses an answer for another product: neither sold as asked nor as answered', () => {
    expect(canonicalReference('prod-abc', 'prod-xyz')).toEqual({
      ok: false,
      error: 'another-product',
    });
    expect(canonicalReference('INV-123', 'INV-1234')).toEqual({
      ok: false,
      error: 'another-product',
    });
  });

  it('refuses an answer dzpay could not store as sent', () => {
    expect(canonicalReference('prod', 'prod\u0000')).toEqual({ ok: false, error: 'unusable' });
    expect(canonicalReference('prod', 'prod\udc00')).toEqual({ ok: false, error: 'unusable' });
  });
});

describe('sameProductName: what a partner lookup may fold', () => {
  it.each([
    ['letter case', 'prod-abc', 'PROD-ABC'],
    ['Unicode case', 'STRASSE-1', 'stra\u00dfe-1'],
    ['Greek final sigma', '\u03a3\u039f\u03a3', '\u03c3\u03bf\u03c2'],
    ['NFD and NFC', NFD, NFC],
    ['fullwidth letters and digits', '\uff30\uff32\uff2f\uff24-\uff11', 'prod-1'],
    ['ligatures', '\ufb01le-1', 'file-1'],
    ['accents', 'cafe-1', NFC],
    ['Arabic vowel marks', '\u0643\u064e\u062a\u064e\u0628\u064e', '\u0643\u062a\u0628'],
    ['surrounding whitespace', ' prod-1 ', 'prod-1'],
  ])('folds %s', (_what, a, b) => {
    expect(sameProductName(a, b)).toBe(true);
  });

  it.each([
    ['another letter', 'prod-abc', 'prod-abd'],
    ['an inner space', 'prod 1', 'prod1'],
    ['punctuation', 'prod-1', 'prod_1'],
    ['a longer reference', 'INV-12', 'INV-123'],
    ['a zero for an O', 'PR0D', 'PROD'],
  ])('does not fold %s', (_what, a, b) => {
    expect(sameProductName(a, b)).toBe(false);
  });
});
