import { describe, expect, it } from 'vitest';
import { parseUnsetQrConfig } from '../src/domain/qr-config-request.ts';

describe('parseUnsetQrConfig', () => {
  it('accepts a token', () => {
    expect(parseUnsetQrConfig({ token: 'QR1' })).toEqual({ ok: true, value: { token: 'QR1' } });
  });

  it('refuses a missing, empty or non-string token in the spec wording', () => {
    expect(parseUnsetQrConfig({})).toEqual({
      ok: false,
      error: ['token should not be empty', 'token must be a string'],
    });
    expect(parseUnsetQrConfig({ token: '' })).toEqual({
      ok: false,
      error: ['token should not be empty'],
    });
    expect(parseUnsetQrConfig({ token: false })).toEqual({
      ok: false,
      error: ['token must be a string'],
    });
  });
});
