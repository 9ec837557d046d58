import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';
import { createDashboardUser, DashboardAgent, SESSION_COOKIE } from './support/dashboard-agent.ts';

/** The sign-in form's cookie as it is named today and as it was. */
const FORM_COOKIES = ['__Host-dzpay_dashboard_form', 'dzpay_dashboard_form'];

// Sessions, sign-in and its throttle, CSRF and the page headers, over real HTTP with
// the real Redis and Postgres. The dashboard trusts one proxy hop here, so each test
// signs in from its own address (X-Forwarded-For) and the per-address count of one
// test never spills into another.

let stack: Stack;
let merchant: Awaited<ReturnType<Stack['merchant']>>;
const password = 'correct horse battery staple';
let addresses = 0;

/** An agent from an address no other test uses. */
const agent = (headers: Record<string, string> = {}) =>
  new DashboardAgent(stack.dashboard!.url, {
    'x-forwarded-for': `198.51.100.${++addresses}`,
    'accept-language': 'en',
    ...headers,
  });

async function user(email: string) {
  await createDashboardUser(stack, merchant.id, email, password);
  return email;
}

beforeAll(async () => {
  stack = await startStack(
    'dashboard-session',
    { TRUST_PROXY_HOPS: '1' },
    { withQrConfig: false, withDashboard: true },
  );
  merchant = await stack.merchant('Librairie Tlemcen');
}, 60_000);
afterAll(() => stack?.stop());

describe('dashboard sign-in', () => {
  it('sends an unauthenticated page to the sign-in page, and back after it', async () => {
    const email = await user('back@tlemcen.example');
    const browser = agent();
    const answer = await browser.get('/dashboard/api-keys');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/dashboard/login?next=%2Fdashboard%2Fapi-keys');
    await browser.get(answer.location!);
    const login = await browser.post('/dashboard/login', {
      email,
      password,
      next: '/dashboard/api-keys',
    });
    expect(login.status).toBe(303);
    expect(login.location).toBe('/dashboard/api-keys');
  });

  it('signs in whatever the email case, with a secure HTTP-only SameSite=Lax cookie', async () => {
    const email = await user('owner@tlemcen.example');
    const browser = agent();
    const login = await browser.login(email.toUpperCase(), password);
    expect(login.status).toBe(303);
    // Secure, so __Host-: no sibling subdomain or plain-HTTP answer can plant one.
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\/(;|$)/i);
    expect(cookie).not.toMatch(/; Domain=/i);
    const home = await browser.get('/dashboard');
    expect(home.status).toBe(303);
    expect(home.location).toBe('/dashboard/payments');
    const page = await browser.get('/dashboard/team');
    expect(page.status).toBe(200);
    expect(page.html).toContain('Librairie Tlemcen');
    expect(page.html).toContain(email);
  });

  it('sends the security headers with every page', async () => {
    const browser = agent();
    await browser.login(await user('headers@tlemcen.example'), password);
    for (const path of ['/dashboard/login', '/dashboard/team', '/dashboard/no-such-page']) {
      const page = await browser.get(path);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('same-origin');
      expect(page.headers.get('cache-control')).toBe('no-store');
    }
    expect(browser.lastHtml).not.toContain('<script');
    expect(browser.lastHtml).not.toContain('style=');
    const css = await browser.get('/dashboard/assets/dashboard.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
  });

  it('refuses a wrong password and an unknown email alike (401, same words)', async () => {
    const email = await user('wrong@tlemcen.example');
    const wrong = await agent().login(email, 'not the password at all');
    const unknown = await agent().login('nobody@tlemcen.example', password);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.html).toContain('Wrong email or password.');
    expect(unknown.html).toContain('Wrong email or password.');
    expect(wrong.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(
      false,
    );
  });

  it('five wrong passwords from five addresses lock nobody out: the right one signs in', async () => {
    const email = await user('five-places@tlemcen.example');
    for (let i = 0; i < 5; i++) {
      expect((await agent().login(email, `wrong password ${i}`)).status).toBe(401);
    }
    expect((await agent().login(email, password)).status).toBe(303);
  });

  it('throttles an account from one address after 5 failures there, not from elsewhere', async () => {
    const email = await user('throttled@tlemcen.example');
    const guesser = agent();
    for (let i = 0; i < 5; i++) {
      expect((await guesser.login(email, `wrong password ${i}`)).status).toBe(401);
    }
    const refused = await guesser.login(email, password);
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Too many failed sign-ins for this account');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800);
    // The owner from their own place, and another account from the guesser's, sign in.
    expect((await agent().login(email, password)).status).toBe(303);
    expect((await guesser.login(await user('neighbour@tlemcen.example'), password)).status).toBe(
      303,
    );
  });

  it('strangers guessing from many addresses lock unknown places out, never the owner’s device', async () => {
    const email = await user('besieged@tlemcen.example');
    const laptop = agent();
    expect((await laptop.login(email, password)).status).toBe(303);
    const device = [...laptop.cookies].find(([name]) => name.endsWith('dzpay_dashboard_device'));
    expect(device?.[1]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await laptop.post('/dashboard/logout', {});
    for (let i = 0; i < 50; i++) {
      expect((await agent().login(email, `stranger's guess ${i}`)).status).toBe(401);
    }
    // Someone new, even with the right password, waits: the account is under siege.
    expect((await agent().login(email, password)).status).toBe(429);
    // The owner's own browser, from a new address (a phone network), still signs in.
    const travelling = agent();
    travelling.cookies.set(device![0], device![1]);
    expect((await travelling.login(email, password)).status).toBe(303);
  });

  it('throttles an address after 20 failures, whatever the accounts tried', async () => {
    const browser = agent();
    for (let i = 0; i < 20; i++) {
      expect((await browser.login(`guess${i}@tlemcen.example`, 'wrong password')).status).toBe(401);
    }
    const email = await user('innocent@tlemcen.example');
    const refused = await browser.login(email, password);
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Too many failed sign-ins from your connection');
    // The same account from elsewhere still signs in.
    expect((await agent().login(email, password)).status).toBe(303);
  });

  it('refuses a planted pair of equal form cookie and field that the server did not issue', async () => {
    // Login CSRF: someone who can set cookies for the host (a sibling subdomain, plain
    // HTTP) plants a cookie and posts the same value, to sign the victim into their own
    // account. The value was never issued, so the form is refused whatever the name.
    const email = await user('planted@tlemcen.example');
    const victim = agent();
    const planted = 'P'.repeat(43);
    for (const name of FORM_COOKIES) victim.cookies.set(name, planted);
    const refused = await victim.post('/dashboard/login', { email, password, _csrf: planted });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('This form has expired.');
    expect(victim.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it("refuses the attacker's own issued pair when another site posts it", async () => {
    const email = await user('attacker@tlemcen.example');
    const attacker = agent();
    await attacker.get('/dashboard/login');
    const token = attacker.csrf()!;
    for (const site of ['cross-site', 'same-site']) {
      const victim = agent({ 'sec-fetch-site': site });
      for (const [name, value] of attacker.cookies) victim.cookies.set(name, value);
      const refused = await victim.post('/dashboard/login', { email, password, _csrf: token });
      expect(refused.status).toBe(403);
      expect(victim.cookies.has(SESSION_COOKIE)).toBe(false);
    }
    // From the page itself the same pair works, once.
    const own = agent({ 'sec-fetch-site': 'same-origin' });
    for (const [name, value] of attacker.cookies) own.cookies.set(name, value);
    expect((await own.post('/dashboard/login', { email, password, _csrf: token })).status).toBe(
      303,
    );
    const replay = agent();
    for (const [name, value] of attacker.cookies) replay.cookies.set(name, value);
    expect((await replay.post('/dashboard/login', { email, password, _csrf: token })).status).toBe(
      403,
    );
  });

  it('keeps the form token in a __Host- cookie, Secure, Path=/, SameSite=Strict', async () => {
    const page = await agent().get('/dashboard/login');
    const cookie = page.headers.getSetCookie().find((c) => c.startsWith('__Host-'));
    expect(cookie).toMatch(/^__Host-dzpay_dashboard_form=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Strict/i);
    expect(cookie).toMatch(/; Path=\/(;|$)/i);
    expect(cookie).not.toMatch(/; Domain=/i);
    // The field is not the cookie's value: a copy of one is not the other.
    const field = /name="_csrf" value="([^"]+)"/.exec(page.html)![1];
    expect(cookie).not.toContain(`=${field};`);
  });

  it('refuses a sign-in form without its CSRF token', async () => {
    const email = await user('login-csrf@tlemcen.example');
    const browser = agent();
    await browser.get('/dashboard/login');
    const refused = await browser.post('/dashboard/login', { email, password, _csrf: 'forged' });
    expect(refused.status).toBe(403);
    expect(refused.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(
      false,
    );
  });
});

describe('dashboard sessions', () => {
  it('logs out: the old cookie no longer opens a page', async () => {
    const browser = agent();
    await browser.login(await user('logout@tlemcen.example'), password);
    const cookie = browser.cookies.get(SESSION_COOKIE)!;
    await browser.get('/dashboard/team');
    const out = await browser.post('/dashboard/logout', {});
    expect(out.status).toBe(303);
    expect(out.location).toBe('/dashboard/login');
    const replay = agent();
    replay.cookies.set(SESSION_COOKIE, cookie);
    expect((await replay.get('/dashboard/team')).status).toBe(303);
  });

  it('logs out everywhere: every session of the user ends, others stay', async () => {
    const email = await user('everywhere@tlemcen.example');
    const phone = agent();
    const laptop = agent();
    const colleague = agent();
    await phone.login(email, password);
    await laptop.login(email, password);
    await colleague.login(await user('colleague@tlemcen.example'), password);
    await laptop.get('/dashboard/team');
    const out = await laptop.post('/dashboard/logout-everywhere', {});
    expect(out.status).toBe(303);
    expect((await phone.get('/dashboard/team')).status).toBe(303);
    expect((await laptop.get('/dashboard/team')).status).toBe(303);
    expect((await colleague.get('/dashboard/team')).status).toBe(200);
  });

  it('refuses a form without or with a wrong CSRF token, and changes nothing', async () => {
    const browser = agent();
    await browser.login(await user('csrf@tlemcen.example'), password);
    await browser.get('/dashboard/api-keys');
    const before = (await browser.get('/dashboard/api-keys')).html.match(/<tr>/g)?.length ?? 0;
    for (const token of ['', 'wrong-token', `${browser.csrf()}x`]) {
      const refused = await browser.post('/dashboard/api-keys', { label: 'forged', _csrf: token });
      expect(refused.status).toBe(403);
      expect(refused.html).not.toContain('pk_test_');
    }
    const logout = await browser.post('/dashboard/logout', { _csrf: 'wrong' });
    expect(logout.status).toBe(403);
    const after = await browser.get('/dashboard/api-keys');
    expect(after.status).toBe(200);
    expect(after.html.match(/<tr>/g)?.length ?? 0).toBe(before);
    expect(after.html).not.toContain('forged');
  });

  it('refuses a form body that is not urlencoded, and the API still refuses one', async () => {
    const browser = agent();
    await browser.login(await user('json@tlemcen.example'), password);
    const json = await fetch(`${stack.dashboard!.url}/dashboard/api-keys`, {
      method: 'POST',
      headers: {
        cookie: `${SESSION_COOKIE}=${browser.cookies.get(SESSION_COOKIE)}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ _csrf: 'x' }),
      redirect: 'manual',
    });
    expect(json.status).toBe(403);
    const api = await fetch(`${stack.gateway.url}/api/v1/payments`, {
      method: 'POST',
      headers: {
        'x-api-key': merchant.testKey,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'amount=100',
    });
    expect(api.status).toBe(400);
    // The form parser lives in the dashboard's plugin only: the API still names JSON.
    expect(JSON.stringify(await api.json())).toContain('Content-Type must be application/json');
  });
});

describe('dashboard languages and modes', () => {
  it('answers Arabic right to left, from Accept-Language, then as chosen', async () => {
    const browser = agent({ 'accept-language': 'ar-DZ,ar;q=0.9,fr;q=0.8' });
    const login = await browser.get('/dashboard/login');
    expect(login.html).toContain('<html lang="ar" dir="rtl">');
    await browser.post('/dashboard/login', {
      email: await user('arabic@tlemcen.example'),
      password,
      lang: 'ar',
    });
    const team = await browser.get('/dashboard/team');
    expect(team.html).toContain('<html lang="ar" dir="rtl">');
    expect(team.html).toContain('الفريق');
    const switched = await browser.post('/dashboard/language', {
      language: 'fr',
      return: '/dashboard/team',
    });
    expect(switched.location).toBe('/dashboard/team');
    const french = await browser.get('/dashboard/team');
    expect(french.html).toContain('<html lang="fr" dir="ltr">');
    expect(french.html).toContain('Équipe');
  });

  it('switches between test and live data, and never returns outside the dashboard', async () => {
    const browser = agent();
    await browser.login(await user('mode@tlemcen.example'), password);
    await browser.get('/dashboard/api-keys');
    const switched = await browser.post('/dashboard/mode', {
      mode: 'live',
      return: '//evil.example/x',
    });
    expect(switched.location).toBe('/dashboard');
    const live = await browser.get('/dashboard/api-keys');
    expect(live.html).toContain('aria-pressed="true">Live');
    expect(live.html).toContain(merchant.liveKey.slice(0, 12));
    expect(live.html).not.toContain(merchant.testKey.slice(0, 12));
  });
});
