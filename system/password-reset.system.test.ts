import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startDashboard, type Dashboard } from '@dzpay/dashboard/service';
import { startMailCatcher, type MailCatcher } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/browser.ts';
import { createDashboardUser, DashboardAgent } from './support/dashboard-agent.ts';
import {
  openContext,
  overflowsSideways,
  screenshot,
  seriousViolations,
} from './support/dashboard-browser-support.ts';
import { startStack, type Stack } from './support/stack.ts';

// A forgotten dashboard password, over real HTTP, with the real Postgres, Redis and a real
// SMTP server (the testkit's catcher): asking for a link, the email, the link's page,
// what setting the password ends, and what the asks never tell.

let stack: Stack;
let mail: MailCatcher;
let merchant: Awaited<ReturnType<Stack['merchant']>>;
const password = 'correct horse battery staple';
const newPassword = 'a brand new passphrase for 2026';
let addresses = 0;

/** An agent from an address no other test uses (the dashboard trusts one proxy hop). */
const agent = (headers: Record<string, string> = {}) =>
  new DashboardAgent(stack.dashboard!.url, {
    'x-forwarded-for': `198.51.100.${++addresses}`,
    'accept-language': 'en',
    ...headers,
  });

let emails = 0;
/** A user of the demo merchant with a fresh email; answers the email and the user's id. */
async function user(name: string, merchantId = merchant.id) {
  const email = `${name}.${++emails}@oran.example`;
  const id = await createDashboardUser(stack, merchantId, email, password);
  return { email, id };
}

const sql = () => stack.gateway.runtime.sql;

/** Asks for a link from the ask page, as a browser would (its form token included). */
async function ask(browser: DashboardAgent, email: string, lang?: string) {
  await browser.get(`/dashboard/password-reset${lang ? `?lang=${lang}` : ''}`);
  return browser.post('/dashboard/password-reset', { email, ...(lang ? { lang } : {}) });
}

/** Every link asked so far has been mailed or given up. */
const settled = () => stack.dashboard!.resetMailing.settled();

const mailsTo = (address: string): MailCatcher['messages'] =>
  mail.messages.filter((m) => m.to && 'text' in m.to && m.to.text === address);

/** The link of the last email to this address, as a path of the dashboard. */
async function linkFor(address: string): Promise<string> {
  await settled();
  const last = mailsTo(address).at(-1);
  expect(last, `an email to ${address}`).toBeDefined();
  const found = /https?:\/\/\S+\/dashboard\/password-reset\/[A-Za-z0-9_-]{43}\?lang=\w+/.exec(
    last!.text ?? '',
  );
  expect(found, 'a link in the text part').not.toBeNull();
  const url = new URL(found![0]);
  return `${url.pathname}${url.search}`;
}

/** Whether the agent's session still opens a page. */
async function signedIn(browser: DashboardAgent): Promise<boolean> {
  const page = await browser.get('/dashboard/team');
  return !(page.status === 303 && page.location?.startsWith('/dashboard/login'));
}

beforeAll(async () => {
  mail = await startMailCatcher();
  stack = await startStack(
    'password-reset',
    { TRUST_PROXY_HOPS: '1', ...mail.env, SMTP_FROM: 'dzpay <no-reply@dzpay.test>' },
    { withQrConfig: false, withDashboard: true },
  );
  merchant = await stack.merchant('Librairie Oran');
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await mail?.close();
});

describe('a password reset by email', () => {
  it('mails a link in the asked language that sets a new password once and ends every session', async () => {
    const { email, id } = await user('amina');
    const laptop = agent();
    const phone = agent();
    expect((await laptop.login(email, password)).status).toBe(303);
    expect((await phone.login(email, password)).status).toBe(303);
    expect(await signedIn(laptop)).toBe(true);

    const asked = await ask(agent(), email, 'ar');
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('<html lang="ar" dir="rtl">');
    expect(asked.html).toContain('تفقّد بريدك الإلكتروني');

    const path = await linkFor(email);
    const [message] = mailsTo(email);
    expect(mailsTo(email)).toHaveLength(1);
    expect(message!.subject).toBe('اختر كلمة مرور جديدة للوحة تحكم dzpay');
    expect(message!.from?.text).toContain('no-reply@dzpay.test');
    expect(path).toMatch(/\?lang=ar$/);
    // The link is under the public base URL (the gateway's, which the ingress shares).
    expect(message!.html).toContain(`href="${stack.gateway.url}${path}"`);
    // Stored as its hash only: the token of the email is nowhere in the table.
    const token = /password-reset\/([A-Za-z0-9_-]{43})/.exec(path)![1]!;
    const rows = await sql()`select * from dashboard_password_resets where user_id = ${id}`;
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);

    const browser = agent();
    const form = await browser.get(path);
    expect(form.status).toBe(200);
    expect(form.html).toContain('اختر كلمة مرور جديدة');
    expect(form.html).toContain(`value="${email}"`);
    // The invitation's password rules, in the same words; the link still works after.
    const short = await browser.post(path.split('?')[0]!, { password: 'too short', lang: 'ar' });
    expect(short.status).toBe(400);
    expect(short.html).toContain('يجب أن تتكون كلمة المرور من 12 حرفًا على الأقل.');

    const done = await browser.post(path.split('?')[0]!, { password: newPassword, lang: 'ar' });
    expect(done.status).toBe(200);
    expect(done.html).toContain('تغيّرت كلمة المرور');

    // Every session of the user is gone; the old password no longer signs in, the new one does.
    expect(await signedIn(laptop)).toBe(false);
    expect(await signedIn(phone)).toBe(false);
    expect((await agent().login(email, password)).status).toBe(401);
    const fresh = agent();
    expect((await fresh.login(email, newPassword)).status).toBe(303);
    expect(await signedIn(fresh)).toBe(true);

    // The link does not work twice.
    const again = agent();
    const used = await again.get(path.replace('lang=ar', 'lang=en'));
    expect(used.status).toBe(404);
    expect(used.html).toContain('This link was already used');
    expect(used.html).not.toContain('name="password"');
    const replay = await again.post(path.split('?')[0]!, { password: 'yet another passphrase!' });
    expect(replay.status).toBe(404);
    expect((await agent().login(email, newPassword)).status).toBe(303);

    // Who did it, in the audit log.
    const audit = await sql()<{ actor_kind: string; actor_id: string; actor_label: string }[]>`
      select actor_kind, actor_id, actor_label from audit_events
      where action = 'team.password_reset' and merchant_id = ${merchant.id} and actor_id = ${id}`;
    expect(audit).toEqual([{ actor_kind: 'user', actor_id: id, actor_label: email }]);
  });

  it('refuses an expired link, and the old password still signs in', async () => {
    const { email, id } = await user('late');
    await ask(agent(), email);
    const path = await linkFor(email);
    await sql()`update dashboard_password_resets
      set created_at = now() - interval '31 minutes', expires_at = now() - interval '1 minute'
      where user_id = ${id}`;
    const browser = agent();
    const page = await browser.get(path);
    expect(page.status).toBe(404);
    expect(page.html).toContain('This link has expired: links work for 30 minutes.');
    expect(page.html).toContain('href="/dashboard/password-reset?lang=en"');
    const refused = await browser.post(path.split('?')[0]!, { password: newPassword });
    expect(refused.status).toBe(404);
    expect((await agent().login(email, password)).status).toBe(303);
  });

  it("ends the user's other links when one of them sets the password", async () => {
    const { email } = await user('twice');
    await ask(agent(), email);
    const first = await linkFor(email);
    await ask(agent(), email);
    const second = await linkFor(email);
    expect(second).not.toBe(first);
    const browser = agent();
    await browser.get(second);
    expect((await browser.post(second.split('?')[0]!, { password: newPassword })).status).toBe(200);
    const stale = await agent().get(first);
    expect(stale.status).toBe(404);
    expect(stale.html).toContain('This link was already used');
  });

  it('refuses a malformed or unknown token the same way', async () => {
    for (const token of ['nope', 'A'.repeat(43)]) {
      const page = await agent().get(`/dashboard/password-reset/${token}`);
      expect(page.status).toBe(404);
      expect(page.html).toContain('This link is not valid.');
    }
  });

  it('refuses an ask without the form token the server issued, and mails nothing', async () => {
    const { email } = await user('forged');
    const browser = agent();
    await browser.get('/dashboard/password-reset');
    const refused = await browser.post('/dashboard/password-reset', { email, _csrf: 'forged' });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('This form has expired.');
    const planted = agent();
    planted.cookies.set('__Host-dzpay_dashboard_form', 'P'.repeat(43));
    const plantedAnswer = await planted.post('/dashboard/password-reset', {
      email,
      _csrf: 'P'.repeat(43),
    });
    expect(plantedAnswer.status).toBe(403);
    await settled();
    expect(mailsTo(email)).toHaveLength(0);
  });

  it('says 400 to what is not an email, and keeps what was typed', async () => {
    const refused = await ask(agent(), 'not-an-email');
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Enter a valid email address.');
    expect(refused.html).toContain('value="not-an-email"');
  });
});

describe('what an ask never tells', () => {
  /** The answer's parts a prober can see, minus the parts that are random by design. */
  function visible(answer: Awaited<ReturnType<typeof ask>>) {
    return {
      status: answer.status,
      body: answer.html,
      contentType: answer.headers.get('content-type'),
      length: answer.headers.get('content-length'),
      cookies: answer.headers.getSetCookie().map((c) => c.replace(/=[^;]*;/, '=…;')),
    };
  }

  it('answers a known, an unknown, a disabled and an inactive merchant’s email identically, mailing only the known', async () => {
    const known = await user('known');
    const disabled = await user('disabled');
    await sql()`update dashboard_users set disabled_at = now() where id = ${disabled.id}`;
    const closedShop = await stack.merchant('Closed shop');
    const closed = await user('closed', closedShop.id);
    await sql()`update merchants set active = false where id = ${closedShop.id}`;
    const unknown = `nobody.${++emails}@oran.example`;

    const answers = [];
    for (const email of [known.email, unknown, disabled.email, closed.email]) {
      answers.push(visible(await ask(agent(), email, 'fr')));
    }
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]!.body).toContain('Consultez vos e-mails');
    // Byte for byte the same page, headers a prober sees included.
    for (const other of answers.slice(1)) expect(other).toEqual(answers[0]);

    await settled();
    expect(mailsTo(known.email)).toHaveLength(1);
    expect(mailsTo(unknown)).toHaveLength(0);
    expect(mailsTo(disabled.email)).toHaveLength(0);
    expect(mailsTo(closed.email)).toHaveLength(0);
    // Nor does a link get stored for them.
    const [stored] = await sql()<{ n: number }[]>`
      select count(*)::int as n from dashboard_password_resets
      where user_id in (${disabled.id}, ${closed.id})`;
    expect(stored!.n).toBe(0);
  });

  it('refuses the 4th ask for one email in the hour with a clear 429 page, from anywhere', async () => {
    const { email } = await user('flooded');
    for (let i = 0; i < 3; i++) expect((await ask(agent(), email)).status).toBe(200);
    const refused = await ask(agent(), email.toUpperCase());
    expect(refused.status).toBe(429);
    expect(refused.html).toContain(
      'Too many links were asked for this email. Try again in 60 min.',
    );
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
    await settled();
    expect(mailsTo(email)).toHaveLength(3);
    // An unknown email is counted the same: its refusal tells nothing either.
    const unknown = `ghost.${++emails}@oran.example`;
    for (let i = 0; i < 3; i++) expect((await ask(agent(), unknown)).status).toBe(200);
    expect((await ask(agent(), unknown)).status).toBe(429);
  });

  it('refuses the 11th ask from one connection, whatever the emails', async () => {
    const browser = agent();
    for (let i = 0; i < 10; i++) {
      expect((await ask(browser, `probe${i}.${++emails}@oran.example`)).status).toBe(200);
    }
    const refused = await ask(browser, (await user('innocent')).email);
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Too many links were asked from your connection.');
  });
});

describe('an ask with a slow mail server', () => {
  let silent: Server;
  let slow: Dashboard;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    // A mail server that accepts connections and never says hello: sending waits for
    // SMTP_TIMEOUT_MS. An answer that waited for the mail would take that long.
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    slow = await startDashboard(
      {
        ...stack.infra.env,
        HTTP_PORT: '0',
        HTTP_HOST: '127.0.0.1',
        TRUST_PROXY_HOPS: '1',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String((silent.address() as AddressInfo).port),
        SMTP_TIMEOUT_MS: '2500',
      },
      { handleSignals: false },
    );
  });
  afterAll(async () => {
    await slow?.runtime.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()));
  });

  it('answers a known email as fast as an unknown one: the mail goes out after the answer', async () => {
    const { email } = await user('slowmail');
    const timed = async (address: string) => {
      const browser = new DashboardAgent(slow.url, {
        'x-forwarded-for': `203.0.113.${++addresses}`,
      });
      await browser.get('/dashboard/password-reset');
      const started = performance.now();
      const answer = await browser.post('/dashboard/password-reset', { email: address });
      return { status: answer.status, ms: performance.now() - started };
    };
    const unknown = await timed(`nobody.${++emails}@oran.example`);
    const started = performance.now();
    const known = await timed(email);
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    // The mail server holds the link for 2.5 s; the asker waited for none of it.
    expect(known.ms).toBeLessThan(1_000);
    await slow.resetMailing.settled();
    expect(performance.now() - started).toBeGreaterThan(2_000);
  });
});

describe('the pages in Chromium', () => {
  let browser: Browser;
  let plain: Dashboard;

  beforeAll(async () => {
    // Plain HTTP here, as in the dashboard's own browser test: cookies without Secure.
    [browser, plain] = await Promise.all([
      launchChromium(),
      startDashboard(
        {
          ...stack.infra.env,
          ...mail.env,
          HTTP_PORT: '0',
          HTTP_HOST: '127.0.0.1',
          DASHBOARD_COOKIE_SECURE: 'false',
        },
        { handleSignals: false },
      ),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await plain?.runtime.stop();
  });

  for (const [language, phone] of [
    ['ar', true],
    ['fr', false],
  ] as const) {
    it(`asks, mails and sets a password in ${language} on a ${phone ? 'phone' : 'laptop'}, with no serious axe violation`, async () => {
      const { email } = await user(`chromium-${language}`);
      const context = await openContext(browser, { phone, locale: language });
      const page = await context.newPage();
      const shot = (name: string) =>
        screenshot(page, `password-reset-${name}-${language}-${phone ? 'phone' : 'laptop'}`);
      const checked = async (name: string) => {
        expect(await seriousViolations(page), `${name} in ${language}`).toEqual([]);
        if (phone) expect(await overflowsSideways(page), name).toBe(false);
        await shot(name);
      };
      try {
        await page.goto(`${plain.url}/dashboard/password-reset?lang=${language}`);
        expect(await page.getAttribute('html', 'dir')).toBe(language === 'ar' ? 'rtl' : 'ltr');
        await checked('ask');
        await page.fill('#email', email);
        await page.locator('form button[type="submit"]').click();
        await page.waitForSelector('p[role="status"]');
        await checked('sent');

        await plain.resetMailing.settled();
        const path = await linkFor(email);
        await page.goto(`${plain.url}${path}`);
        await checked('choose');
        await page.fill('#password', newPassword);
        await page.locator('form button[type="submit"]').click();
        await page.waitForSelector('p[role="status"]');
        await checked('done');

        await page.goto(`${plain.url}${path}`);
        expect(await page.locator('p[role="alert"]').count()).toBe(1);
        await checked('used');
      } finally {
        await context.close();
      }
    });
  }
});
