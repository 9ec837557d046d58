import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  CreatePaymentLinkBody,
  PayoutRecordRequest,
  RegisterPaymentBody,
  SetQrConfigBody,
  StatusReference,
  validationMessages,
} from '../src/index.ts';

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
const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase()}`;
/** Shown as "Facture exe.pdf" where the text is laid out. */
const SPOOFED = 'Facture \u202efdp.exe';

const messagesOf = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input, { reportInput: true });
  return result.success ? [] : validationMessages(result.error.issues);
};

const payment = (reference: string) => ({ amount: 5_000, currency: 'DZD', reference });
const link = (label: string) => ({ label, amount: 5_000 });
const payout = (fields: Record<string, string>) => ({
  merchantId: '7f0c1f3e-7a5b-4c7e-9d2a-0f5b8c1d2e3f',
  mode: 'live',
  amount: 100_000,
  wallet: 'W-1',
  reference: 'BNA-2026-0001',
  operator: 'amina',
  ...fields,
});

describe('text merchants name things with refuses bidirectional controls', () => {
  it.each(BIDI_CONTROLS.map((char) => [codePoint(char), char]))(
    'a payment reference holding %s',
    (_name, char) => {
      expect(messagesOf(RegisterPaymentBody, payment(`INV-${char}42`))).toEqual([
        'reference must not contain bidirectional control characters',
      ]);
    },
  );

  it.each(BIDI_CONTROLS.map((char) => [codePoint(char), char]))(
    'a payment link label holding %s',
    (_name, char) => {
      expect(messagesOf(CreatePaymentLinkBody, link(`Facture ${char}fdp.exe`))).toEqual([
        'label must not contain bidirectional control characters',
      ]);
    },
  );

  it('a payout’s bank reference, wallet and operator', () => {
    expect(messagesOf(PayoutRecordRequest, payout({ reference: SPOOFED }))).toEqual([
      'reference must not contain bidirectional control characters',
    ]);
    expect(messagesOf(PayoutRecordRequest, payout({ wallet: 'W-\u20671' }))).toEqual([
      'wallet must not contain bidirectional control characters',
    ]);
    expect(messagesOf(PayoutRecordRequest, payout({ operator: 'amina\u202b' }))).toEqual([
      'operator must not contain bidirectional control characters',
    ]);
  });

  it('still takes Arabic text and the marks that only set a direction', () => {
    expect(messagesOf(RegisterPaymentBody, payment('طلب-42\u200f'))).toEqual([]);
    expect(messagesOf(CreatePaymentLinkBody, link('دروس البيانو \u200e2026'))).toEqual([]);
    expect(messagesOf(PayoutRecordRequest, payout({}))).toEqual([]);
  });
});

describe('the spec’s own validation is left as the spec has it', () => {
  it('the status endpoint’s reference: 1 to 255 characters, whatever they are', () => {
    expect(StatusReference.safeParse(SPOOFED).success).toBe(true);
  });

  it('the QR configuration endpoints’ messages', () => {
    expect(
      messagesOf(SetQrConfigBody, { token: `QR${SPOOFED}`, amounts: [15], singleUse: true }),
    ).toEqual([]);
  });
});
