import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { luhnValid, type CardInput } from '../src/domain/card.ts';
import { judgeCard, OUTCOMES, TEST_CARDS, WRONG_CVV2 } from '../src/domain/test-cards.ts';

const now = new Date('2026-11-21T12:00:00Z');
const card = (pan: string, change: Partial<CardInput> = {}): CardInput => ({
  pan,
  expiryMonth: 12,
  expiryYear: 2028,
  cvv: '123',
  cardholderName: 'Test Payer',
  ...change,
});

describe('test cards', () => {
  it('are all Luhn-valid 628058 numbers', () => {
    for (const pan of Object.keys(TEST_CARDS)) {
      expect(pan).toMatch(/^628058\d{10}$/);
      expect(luhnValid(pan)).toBe(true);
    }
  });

  it.each([
    ['6280580000000009', 'approved', 0, '00'],
    ['6280580000000017', 'insufficientFunds', 116, '51'],
    ['6280580000000025', 'lostCard', 208, '41'],
    ['6280580000000033', 'stolenCard', 209, '43'],
    ['6280580000000041', 'approved', 0, '00'],
  ])('%s gives %s', (pan, outcome, actionCode, respCode) => {
    const verdict = judgeCard(card(pan), now);
    expect(verdict.outcome).toBe(outcome);
    expect(OUTCOMES[verdict.outcome]).toMatchObject({ actionCode, respCode });
  });

  it('makes only the timeout card hang at confirmation', () => {
    expect(judgeCard(card('6280580000000041'), now).hangsAtConfirm).toBe(true);
    expect(judgeCard(card('6280580000000009'), now).hangsAtConfirm).toBe(false);
  });

  it('declines an approved card with CVV2 000 as a wrong CVV2 (111/AB)', () => {
    const verdict = judgeCard(card('6280580000000009', { cvv: WRONG_CVV2 }), now);
    expect(verdict).toEqual({ outcome: 'wrongCvv2', hangsAtConfirm: false });
    expect(OUTCOMES.wrongCvv2).toMatchObject({ actionCode: 111, respCode: 'AB' });
  });

  it('declines a card past its expiry as expired (-2006), before checking the CVV2', () => {
    const expired = card('6280580000000009', { expiryMonth: 10, expiryYear: 2026, cvv: '000' });
    expect(judgeCard(expired, now).outcome).toBe('expiredCard');
  });

  it('declines a Luhn-valid card it does not know (2001/14)', () => {
    expect(judgeCard(card('6280580000000058'), now).outcome).toBe('unknownCard');
    expect(OUTCOMES.unknownCard).toMatchObject({ actionCode: 2001, respCode: '14' });
  });

  it('are all listed in docs/cardnet-sandbox.md', () => {
    const docs = readFileSync(new URL('../../../docs/cardnet-sandbox.md', import.meta.url), 'utf8');
    for (const pan of Object.keys(TEST_CARDS)) expect(docs).toContain(`\`${pan}\``);
    for (const { actionCode } of Object.values(OUTCOMES)) expect(docs).toContain(`${actionCode}`);
  });
});
