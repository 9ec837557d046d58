import { describe, expect, it } from 'vitest';
import { publicPage } from '../src/layout.ts';
import { dashboardCookies } from '../src/cookies.ts';
import { fromAnotherSite, sameToken, newToken } from '../src/csrf.ts';
import { chooseLanguage, directionOf, fromAcceptLanguage } from '../src/language.ts';
import { LOGIN_LIMITS, loginVerdict, normalizeEmail } from '../src/login-throttle.ts';
import { returnPathOf, safeReturnPath } from '../src/navigation.ts';
import { cleanEmail, passwordProblem } from '@dzpay/accounts';
import { relativePath } from '../src/kit.ts';
import { DashboardMessages } from '../src/messages.ts';

describe('the sign-in throttle', () => {
  const none = { count: 0, ttlSeconds: -2 };
  const unknown = (over: Partial<Record<'address' | 'accountAddress' | 'account', number>>) => ({
    knownDevice: false as const,
    address: { count: over.address ?? 0, ttlSeconds: 42 },
    accountAddress: { count: over.accountAddress ?? 0, ttlSeconds: 600 },
    account: { count: over.account ?? 0, ttlSeconds: 300 },
  });

  it('allows below every limit', () => {
    expect(loginVerdict(unknown({ address: 19, accountAddress: 4, account: 49 }))).toEqual({
      allowed: true,
    });
  });

  it('refuses an account from one address at 5 failures there, with the time its window has left', () => {
    expect(loginVerdict(unknown({ accountAddress: 5 }))).toEqual({
      allowed: false,
      by: 'account',
      retryAfterSeconds: 600,
    });
  });

  it('refuses an address at 20 failures, before looking at the account', () => {
    expect(loginVerdict(unknown({ address: 20, accountAddress: 9 }))).toEqual({
      allowed: false,
      by: 'address',
      retryAfterSeconds: 42,
    });
  });

  it('refuses unknown places for an account guessed at from 50 places at once', () => {
    expect(loginVerdict(unknown({ account: 50 }))).toEqual({
      allowed: false,
      by: 'account',
      retryAfterSeconds: 300,
    });
  });

  it('judges a known device by its own failures alone, whatever strangers did', () => {
    expect(loginVerdict({ knownDevice: true, device: { count: 4, ttlSeconds: 60 } })).toEqual({
      allowed: true,
    });
    expect(loginVerdict({ knownDevice: true, device: { count: 5, ttlSeconds: 60 } })).toEqual({
      allowed: false,
      by: 'account',
      retryAfterSeconds: 60,
    });
  });

  it('says the whole window when the counter has no expiry', () => {
    expect(loginVerdict({ knownDevice: true, device: { ...none, count: 6 } })).toMatchObject({
      retryAfterSeconds: LOGIN_LIMITS.windowSeconds,
    });
  });

  it('counts an account whatever the case and spaces of its email', () => {
    expect(normalizeEmail('  Owner@Shop.DZ ')).toBe('owner@shop.dz');
  });
});

describe('CSRF tokens', () => {
  it('accepts the same token only', () => {
    const token = newToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sameToken(token, token)).toBe(true);
    expect(sameToken(token, `${token}x`)).toBe(false);
    expect(sameToken(token, token.slice(0, -1))).toBe(false);
    expect(sameToken(token, newToken())).toBe(false);
  });

  it('refuses a missing, empty or non-string token', () => {
    const token = newToken();
    for (const submitted of [undefined, null, '', 42, [token], { token }]) {
      expect(sameToken(token, submitted)).toBe(false);
    }
    expect(sameToken('', '')).toBe(false);
  });
});

describe('the forms before a session', () => {
  it('refuse what the browser says another site or a sibling subdomain sent', () => {
    expect(fromAnotherSite('cross-site')).toBe(true);
    expect(fromAnotherSite('same-site')).toBe(true);
  });

  it('leave their own pages, a typed address and clients without Fetch Metadata to the token', () => {
    for (const value of ['same-origin', 'none', undefined, '', ['cross-site']]) {
      expect(fromAnotherSite(value)).toBe(false);
    }
  });
});

describe('the cookies', () => {
  it('are __Host- cookies for the whole host when Secure', () => {
    expect(dashboardCookies(true)).toEqual({
      session: '__Host-dzpay_dashboard',
      form: '__Host-dzpay_dashboard_form',
      device: '__Host-dzpay_dashboard_device',
      path: '/',
    });
  });

  it('keep their plain names under /dashboard over plain HTTP, where __Host- cannot be', () => {
    expect(dashboardCookies(false)).toEqual({
      session: 'dzpay_dashboard',
      form: 'dzpay_dashboard_form',
      device: 'dzpay_dashboard_device',
      path: '/dashboard',
    });
  });
});

describe('the page language', () => {
  it('takes an explicit choice first', () => {
    expect(chooseLanguage('ar', 'fr-FR,fr;q=0.9')).toBe('ar');
  });

  it('else the best of ar/fr/en in Accept-Language', () => {
    expect(fromAcceptLanguage('de-DE,ar-DZ;q=0.8,en;q=0.5')).toBe('ar');
    expect(fromAcceptLanguage('en;q=0.4, fr;q=0.9')).toBe('fr');
    expect(fromAcceptLanguage('en-GB')).toBe('en');
    expect(fromAcceptLanguage('de, es;q=0.5')).toBeNull();
    expect(fromAcceptLanguage('ar;q=0')).toBeNull();
  });

  it('falls back to French, and ignores choices that are not languages', () => {
    expect(chooseLanguage('xx', undefined)).toBe('fr');
    expect(chooseLanguage(['ar'], 'en')).toBe('en');
  });

  it('writes Arabic right to left', () => {
    expect(directionOf('ar')).toBe('rtl');
    expect(directionOf('fr')).toBe('ltr');
  });

  it('has every text in every language', () => {
    const keys = Object.keys(DashboardMessages.en).sort();
    expect(Object.keys(DashboardMessages.fr).sort()).toEqual(keys);
    expect(Object.keys(DashboardMessages.ar).sort()).toEqual(keys);
  });
});

describe('where forms may send the browser back', () => {
  it('keeps dashboard paths', () => {
    expect(safeReturnPath('/dashboard/payments?status=success')).toBe(
      '/dashboard/payments?status=success',
    );
    expect(safeReturnPath('/dashboard')).toBe('/dashboard');
  });

  it('refuses anything else', () => {
    for (const path of [
      'https://evil.example/dashboard',
      '//evil.example/dashboard',
      '/dashboard//evil.example',
      '/dashboard\\..\\x',
      '/api/v1/payments',
      '/dashboardx',
      undefined,
      42,
    ]) {
      expect(safeReturnPath(path)).toBe('/dashboard');
    }
  });
});

describe('passwords and emails', () => {
  it('wants 12 to 200 characters', () => {
    expect(passwordProblem('short')).toBe('tooShort');
    expect(passwordProblem(undefined)).toBe('tooShort');
    expect(passwordProblem('x'.repeat(12))).toBeNull();
    expect(passwordProblem('x'.repeat(201))).toBe('tooLong');
  });

  it('takes plausible emails only, trimmed', () => {
    expect(cleanEmail(' amina@shop.dz ')).toBe('amina@shop.dz');
    expect(cleanEmail('amina@shop')).toBeNull();
    expect(cleanEmail('a b@shop.dz')).toBeNull();
    expect(cleanEmail('<x>@shop.dz')).toBeNull();
  });
});

describe('page paths', () => {
  it('are registered under the plugin prefix, given with or without it', () => {
    expect(relativePath('/dashboard/payments')).toBe('/payments');
    expect(relativePath('/payments/:id')).toBe('/payments/:id');
    expect(relativePath('/dashboard')).toBe('/');
    expect(relativePath('qr-codes')).toBe('/qr-codes');
  });
});

describe('where the header switches return', () => {
  it('is the page itself after a GET, query included', () => {
    expect(returnPathOf('GET', '/dashboard/payments?status=success', undefined)).toBe(
      '/dashboard/payments?status=success',
    );
  });

  it('is the page the form was on after a POST, never another site', () => {
    expect(
      returnPathOf('POST', '/dashboard/team/invite', 'https://pay.example/dashboard/team'),
    ).toBe('/dashboard/team');
    expect(returnPathOf('POST', '/dashboard/team/invite', undefined)).toBe('/dashboard');
    expect(returnPathOf('POST', '/dashboard/x', 'https://evil.example/steal')).toBe('/dashboard');
  });
});

describe('the pages before sign-in', () => {
  it('name the product and the space they open, in the page language', () => {
    const fr = publicPage({ language: 'fr', title: 'Se connecter', body: '' });
    expect(fr).toContain('<p class="brand product">dzpay · Espace marchand</p>');
    const ar = publicPage({ language: 'ar', title: 'تسجيل الدخول', body: '' });
    expect(ar).toContain('dzpay · فضاء التاجر');
    expect(ar).toContain('<title>تسجيل الدخول · dzpay</title>');
  });
});
