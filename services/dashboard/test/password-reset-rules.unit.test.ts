import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resetLink, resetMail } from '../src/pages/password-reset-mail.ts';
import { PasswordResetMessages } from '../src/pages/password-reset-messages.ts';
import {
  minutesToWait,
  RESET_ASK_LIMITS,
  resetAskVerdict,
} from '../src/password-reset-throttle.ts';
import {
  DEFAULT_RESET_MINUTES,
  isResetToken,
  issueResetToken,
  resetLinkState,
  resetTokenHash,
} from '../src/pages/password-reset-token.ts';

// The rules of a password reset link, pure: what is kept of a token, how long it lasts,
// that it works once, how asks are counted, and what the email says.

const NOW = new Date('2026-11-20T10:00:00.000Z');
const minutes = (n: number) => new Date(NOW.getTime() + n * 60_000);

describe('a reset token', () => {
  it('is 256 random bits, base64url, different every time', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => issueResetToken(NOW).token));
    expect(tokens.size).toBe(50);
    for (const token of tokens) {
      expect(isResetToken(token)).toBe(true);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    }
  });

  it('is kept as its SHA-256 only: 32 bytes that do not contain it', () => {
    const issued = issueResetToken(NOW);
    const expected = createHash('sha256').update(issued.token, 'utf8').digest();
    expect(issued.hash.equals(expected)).toBe(true);
    expect(issued.hash).toHaveLength(32);
    expect(resetTokenHash(issued.token).equals(issued.hash)).toBe(true);
    // Nothing of what is stored gives the token back.
    const stored = JSON.stringify({ ...issued, token: undefined });
    expect(stored).not.toContain(issued.token);
    expect(issued.hash.toString('base64url')).not.toBe(issued.token);
    expect(issued.hash.toString('hex')).not.toContain(
      Buffer.from(issued.token, 'base64url').toString('hex'),
    );
  });

  it('lasts 30 minutes by default, or what the settings say', () => {
    expect(DEFAULT_RESET_MINUTES).toBe(30);
    expect(issueResetToken(NOW).expiresAt).toEqual(minutes(30));
    expect(issueResetToken(NOW, 10).expiresAt).toEqual(minutes(10));
    expect(issueResetToken(NOW).createdAt).toEqual(NOW);
  });

  it('refuses anything but the token shape before any lookup', () => {
    for (const bad of [
      '',
      'short',
      'a'.repeat(42),
      'a'.repeat(44),
      `${'a'.repeat(42)}=`,
      `${'a'.repeat(42)}/`,
      `${'a'.repeat(42)}.`,
      undefined,
      42,
    ]) {
      expect(isResetToken(bad), String(bad)).toBe(false);
    }
  });
});

describe('whether a stored link works', () => {
  const link = { expiresAt: minutes(30), usedAt: null, usable: true };

  it('works until its expiry, not at it or after', () => {
    expect(resetLinkState(link, NOW)).toBe('usable');
    expect(resetLinkState(link, new Date(minutes(30).getTime() - 1))).toBe('usable');
    expect(resetLinkState(link, minutes(30))).toBe('expired');
    expect(resetLinkState(link, minutes(31))).toBe('expired');
  });

  it('works once: a used link is used, even before its expiry and even after', () => {
    const used = { ...link, usedAt: minutes(5) };
    expect(resetLinkState(used, minutes(6))).toBe('used');
    expect(resetLinkState(used, minutes(60))).toBe('used');
  });

  it('is unknown for no link, and for a disabled user or an inactive merchant', () => {
    expect(resetLinkState(null, NOW)).toBe('unknown');
    expect(resetLinkState({ ...link, usable: false }, NOW)).toBe('unknown');
  });
});

describe('the asks throttle', () => {
  const counts = (email: number, address: number) => ({
    email,
    address,
    emailTtlSeconds: 1200,
    addressTtlSeconds: 2400,
  });

  it('lets 3 asks per email and 10 per address through in an hour, then refuses', () => {
    expect(RESET_ASK_LIMITS).toEqual({ perEmail: 3, perAddress: 10, windowSeconds: 3600 });
    expect(resetAskVerdict(counts(3, 3))).toEqual({ allowed: true });
    expect(resetAskVerdict(counts(4, 4))).toEqual({
      allowed: false,
      by: 'email',
      retryAfterSeconds: 1200,
    });
    expect(resetAskVerdict(counts(1, 10))).toEqual({ allowed: true });
    expect(resetAskVerdict(counts(1, 11))).toEqual({
      allowed: false,
      by: 'address',
      retryAfterSeconds: 2400,
    });
  });

  it('names the address first, and waits a whole window when the TTL is unknown', () => {
    expect(resetAskVerdict(counts(9, 99))).toMatchObject({ by: 'address' });
    expect(
      resetAskVerdict({ email: 4, address: 1, emailTtlSeconds: -1, addressTtlSeconds: -1 }),
    ).toMatchObject({ retryAfterSeconds: 3600 });
    expect(minutesToWait(1)).toBe(1);
    expect(minutesToWait(61)).toBe(2);
    expect(minutesToWait(1200)).toBe(20);
  });
});

describe('the reset email', () => {
  const token = issueResetToken(NOW).token;

  it('links to the dashboard page under the public URL, in the asked language', () => {
    expect(resetLink('https://pay.dzpay.dz/', token, 'ar')).toBe(
      `https://pay.dzpay.dz/dashboard/password-reset/${token}?lang=ar`,
    );
    expect(resetLink('http://localhost:8080', token, 'fr')).toBe(
      `http://localhost:8080/dashboard/password-reset/${token}?lang=fr`,
    );
  });

  it('says it in ar, fr and en, the link in both parts, the expiry and what to do if not asked', () => {
    const link = resetLink('https://pay.dzpay.dz', token, 'en');
    const subjects = new Set<string>();
    for (const language of ['ar', 'fr', 'en'] as const) {
      const t = PasswordResetMessages[language];
      const mail = resetMail({ language, email: 'amina@example.dz', link, minutes: 30 });
      subjects.add(mail.subject);
      expect(mail.subject).toBe(t.mailSubject);
      expect(mail.text).toContain(link);
      expect(mail.text).toContain(t.mailExpiry(30));
      expect(mail.text).toContain(t.mailIgnore);
      expect(mail.html).toContain(`href="${link}"`);
      expect(mail.html).toContain(`lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}"`);
      expect(mail.html).not.toMatch(/<script|<img|src=/i);
    }
    expect(subjects.size).toBe(3);
  });

  it('escapes what it shows in HTML', () => {
    const mail = resetMail({
      language: 'fr',
      email: '"<b>x</b>"@example.dz',
      link: 'https://pay.dzpay.dz/dashboard/password-reset/t?lang=fr&x="<i>',
      minutes: 30,
    });
    expect(mail.html).not.toContain('<b>');
    expect(mail.html).not.toContain('"<i>');
    expect(mail.html).toContain('&lt;b&gt;');
  });
});
