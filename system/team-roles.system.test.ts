import type { DashboardRole } from '@dzpay/accounts';
import type { PaymentView } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardMessages } from '../services/dashboard/src/messages.ts';
import { allows } from '../services/dashboard/src/permissions.ts';
import { TeamMessages } from '../services/dashboard/src/pages/team-messages.ts';
import {
  createDashboardUser,
  DashboardAgent,
  invitationPathFor,
  textOf,
} from './support/dashboard-agent.ts';
import { paidPayment, readPayment } from './support/paid-payment.ts';
import { startStack, type Stack } from './support/stack.ts';

// Roles over real HTTP against the real dashboard, payments and Postgres: each role is let
// through or refused (403, a page in its language) as the permission table says, for a
// sample of every kind of page and form; an accountant never refunds, even with a forged
// form, yet reads payments and downloads exports; owners and admins manage the team.

let stack: Stack;
let shop: Awaited<ReturnType<Stack['merchant']>>;
let paid: PaymentView;
const password = 'correct horse battery staple';
let seq = 0;

const agent = (language = 'en') =>
  new DashboardAgent(stack.dashboard!.url, { 'accept-language': language });

async function userWithRole(role: DashboardRole, email = `${role}-${seq++}@shop.dz`) {
  return { id: await createDashboardUser(stack, shop.id, email, password, role), email };
}

async function signedIn(role: DashboardRole, language = 'en') {
  const user = await userWithRole(role);
  const browser = agent(language);
  expect((await browser.login(user.email, password)).status).toBe(303);
  return { ...user, browser };
}

const read = (id: string) => readPayment(stack, shop.testKey, id);

beforeAll(async () => {
  stack = await startStack(
    'team-roles',
    { RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: true, withDashboard: true },
  );
  shop = await stack.merchant('Librairie des Rôles');
  paid = await paidPayment(stack, shop.testKey, {
    amount: 250_000,
    reference: `ROLE-${Date.now()}-${seq++}`,
  });
  expect(paid.status).toBe('success');
}, 90_000);
afterAll(() => stack?.stop());

describe('each role, over HTTP', () => {
  /** Pages to open: one of every kind (lists, a payment, downloads, settings, the books). */
  const pages = () => [
    '/dashboard/payments',
    `/dashboard/payments/${paid.id}`,
    '/dashboard/payments/export',
    '/dashboard/qr-codes',
    '/dashboard/report',
    '/dashboard/report/export',
    '/dashboard/audit',
    '/dashboard/webhooks',
    '/dashboard/api-keys',
    '/dashboard/team',
    '/dashboard/balance',
    '/dashboard/payment-links',
    '/dashboard/webhooks/deliveries',
  ];
  /**
   * Forms to send, each harmless when let through: a refund's confirmation page (no money
   * moves), a cancel payments refuses (the payment is paid), a key issued, an invitation,
   * a webhook test without an endpoint, amounts of an unknown QR code.
   */
  const forms = (): [string, Record<string, string>][] => [
    [`/dashboard/payments/${paid.id}/refund/confirm`, { amount: '1' }],
    [`/dashboard/payments/${paid.id}/cancel`, {}],
    ['/dashboard/api-keys', { label: 'from a role test' }],
    ['/dashboard/team/invite', { email: `guest-${seq++}@shop.dz`, role: 'accountant' }],
    ['/dashboard/webhooks/test', {}],
    ['/dashboard/qr-codes/NO-SUCH-CODE/set', { amounts: '100' }],
  ];

  for (const role of ['owner', 'admin', 'developer', 'accountant'] as const) {
    it(`${role}: every sampled page and form is let through or refused as the table says`, async () => {
      const { browser } = await signedIn(role, 'fr');
      const t = DashboardMessages.fr;
      for (const path of pages()) {
        const page = await browser.get(path);
        // A page another part of the dashboard has not registered yet: nothing to judge.
        if (page.status === 404) continue;
        const expected = allows(role, 'GET', path);
        expect({ path, refused: page.status === 403 }).toEqual({ path, refused: !expected });
        if (!expected) {
          expect(page.html).toContain(t.forbiddenText(t.roleNames[role]));
          expect(page.html).toContain('lang="fr"');
        } else {
          // 503: a page whose service this stack does not run (the webhook dispatcher).
          expect([200, 303, 503], path).toContain(page.status);
          expect(page.location ?? '', path).not.toContain('/dashboard/login');
        }
      }
      for (const [path, fields] of forms()) {
        await browser.get('/dashboard/payments');
        const answer = await browser.post(path, fields);
        const expected = allows(role, 'POST', path);
        expect({ path, refused: answer.status === 403 }).toEqual({ path, refused: !expected });
        if (!expected) expect(answer.html).toContain(t.forbiddenTitle);
      }
    });
  }

  it('shows each role only the navigation it may open', async () => {
    for (const role of ['owner', 'developer', 'accountant'] as const) {
      const { browser } = await signedIn(role);
      const nav = /<nav class="main"[\s\S]*?<\/nav>/.exec(
        (await browser.get('/dashboard/payments')).html,
      )![0];
      for (const path of [
        '/dashboard/api-keys',
        '/dashboard/report',
        '/dashboard/audit',
        '/dashboard/webhooks',
      ]) {
        expect({ role, path, shown: nav.includes(`href="${path}"`) }).toEqual({
          role,
          path,
          shown: allows(role, 'GET', path),
        });
      }
    }
  });
});

describe('an accountant', () => {
  it('cannot refund: no form on the payment, and a forged refund is refused 403 with nothing refunded', async () => {
    const { browser } = await signedIn('accountant');
    const page = await browser.get(`/dashboard/payments/${paid.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(paid.reference);
    expect(page.html).not.toContain('/refund');
    expect(page.html).not.toContain('/cancel');
    expect(page.html).not.toContain('/receipt');
    // A form they were never shown, with their own valid CSRF token: refused all the same.
    const forged = await browser.post(`/dashboard/payments/${paid.id}/refund`, {
      amount: '2500',
      confirmed: 'yes',
      idempotencyKey: 'forged-1',
    });
    expect(forged.status).toBe(403);
    expect(forged.html).toContain('Your role (Accountant) does not allow this.');
    expect((await read(paid.id)).refundedAmount).toBe(0);
  });

  it('opens payments and downloads the exports', async () => {
    const { browser } = await signedIn('accountant');
    const list = await browser.get('/dashboard/payments');
    expect(list.status).toBe(200);
    expect(list.html).toContain(paid.reference);
    const csv = await browser.get('/dashboard/payments/export');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.html).toContain(paid.reference);
    const report = await browser.get('/dashboard/report/export');
    expect(report.status).toBe(200);
  });
});

describe('managing the team', () => {
  it('an owner invites with a role; the invitee gets it; a pending invitation can be revoked', async () => {
    const owner = await signedIn('owner');
    await owner.browser.get('/dashboard/team');
    const invited = await owner.browser.post('/dashboard/team/invite', {
      email: 'dev@roles.example',
      role: 'developer',
    });
    expect(invited.status).toBe(200);
    expect(invited.html).toContain(DashboardMessages.en.inviteSent);
    const path = invitationPathFor(stack, 'dev@roles.example')!;
    // The link is in the invitee's mailbox, never on the inviter's page.
    expect(invited.html).not.toContain(path.split('?')[0]!);
    const invitee = agent();
    await invitee.get(path);
    expect((await invitee.post(path, { password: 'a long enough passphrase' })).status).toBe(303);
    const dev = agent();
    expect((await dev.login('dev@roles.example', 'a long enough passphrase')).status).toBe(303);
    expect(textOf((await dev.get('/dashboard/team')).html, 'my-role')).toBe('Developer');
    expect((await dev.get('/dashboard/api-keys')).status).toBe(200);
    expect((await dev.get('/dashboard/report')).status).toBe(403);

    // Another invitation, revoked before use: listed, then gone, its link dead.
    await owner.browser.get('/dashboard/team');
    const second = await owner.browser.post('/dashboard/team/invite', {
      email: 'never@roles.example',
      role: 'admin',
    });
    expect(second.status).toBe(200);
    const deadPath = invitationPathFor(stack, 'never@roles.example')!;
    const team = await owner.browser.get('/dashboard/team');
    const inviteId = /data-invite-id="([0-9a-f-]{36})"><td[^>]*>never@roles\.example/.exec(
      team.html,
    )![1]!;
    const revoked = await owner.browser.post(`/dashboard/team/invites/${inviteId}/revoke`, {});
    expect(revoked.status).toBe(303);
    const after = await owner.browser.get('/dashboard/team');
    expect(after.html).toContain(TeamMessages.en.inviteRevoked('never@roles.example'));
    expect(after.html).not.toContain(`data-invite-id="${inviteId}"`);
    expect((await agent().get(deadPath)).status).toBe(404);
  });

  it('a role change applies to the colleague’s next click', async () => {
    const owner = await signedIn('owner');
    const colleague = await signedIn('developer');
    expect((await colleague.browser.get('/dashboard/api-keys')).status).toBe(200);
    await owner.browser.get('/dashboard/team');
    const changed = await owner.browser.post(`/dashboard/team/users/${colleague.id}/role`, {
      role: 'accountant',
    });
    expect(changed.status).toBe(303);
    expect((await colleague.browser.get('/dashboard/api-keys')).status).toBe(403);
    expect((await colleague.browser.get('/dashboard/report')).status).toBe(200);
  });

  it('disabling signs the colleague out at once; enabling lets them back in', async () => {
    const owner = await signedIn('owner');
    const colleague = await signedIn('accountant');
    await owner.browser.get('/dashboard/team');
    expect(
      (await owner.browser.post(`/dashboard/team/users/${colleague.id}/disable`, {})).status,
    ).toBe(303);
    const out = await colleague.browser.get('/dashboard/payments');
    expect(out.status).toBe(303);
    expect(out.location).toContain('/dashboard/login');
    expect((await agent().login(colleague.email, password)).status).toBe(401);
    await owner.browser.get('/dashboard/team');
    expect(
      (await owner.browser.post(`/dashboard/team/users/${colleague.id}/enable`, {})).status,
    ).toBe(303);
    expect((await agent().login(colleague.email, password)).status).toBe(303);
  });

  it('nobody disables themselves; an admin touches no owner and makes none', async () => {
    const owner = await signedIn('owner');
    await owner.browser.get('/dashboard/team');
    await owner.browser.post(`/dashboard/team/users/${owner.id}/disable`, {});
    expect((await owner.browser.get('/dashboard/team')).html).toContain(
      TeamMessages.en.refusedSelf,
    );
    expect((await owner.browser.get('/dashboard/payments')).status).toBe(200);

    const admin = await signedIn('admin');
    await admin.browser.get('/dashboard/team');
    await admin.browser.post(`/dashboard/team/users/${owner.id}/disable`, {});
    expect((await admin.browser.get('/dashboard/team')).html).toContain(
      TeamMessages.en.refusedOwner,
    );
    expect((await owner.browser.get('/dashboard/payments')).status).toBe(200);
    const asOwner = await admin.browser.post('/dashboard/team/invite', {
      email: 'boss@roles.example',
      role: 'owner',
    });
    expect(asOwner.status).toBe(403);
    expect(invitationPathFor(stack, 'boss@roles.example')).toBeUndefined();
    // The page offers no owner role to an admin, and no form on an owner's row.
    const team = await admin.browser.get('/dashboard/team');
    expect(/<select id="invite-role"[\s\S]*?<\/select>/.exec(team.html)![0]).not.toContain(
      'value="owner"',
    );
    expect(team.html).not.toContain(`/dashboard/team/users/${owner.id}/disable`);
  });

  it('an admin is refused a colleague made owner after their page showed them as admin', async () => {
    const owner = await signedIn('owner');
    const admin = await signedIn('admin');
    const colleague = await userWithRole('admin');
    // The admin's page offers forms on the colleague's row…
    expect((await admin.browser.get('/dashboard/team')).html).toContain(
      `/dashboard/team/users/${colleague.id}/disable`,
    );
    // …then an owner makes the colleague an owner before the admin sends one.
    await owner.browser.get('/dashboard/team');
    await owner.browser.post(`/dashboard/team/users/${colleague.id}/role`, { role: 'owner' });
    expect(
      (
        await admin.browser.post(`/dashboard/team/users/${colleague.id}/role`, {
          role: 'developer',
        })
      ).status,
    ).toBe(303);
    expect((await admin.browser.get('/dashboard/team')).html).toContain(
      TeamMessages.en.refusedOwner,
    );
    await admin.browser.post(`/dashboard/team/users/${colleague.id}/disable`, {});
    const [row] = await stack.gateway.runtime.sql<{ role: string; disabled_at: Date | null }[]>`
      select role, disabled_at from dashboard_users where id = ${colleague.id}`;
    expect(row).toEqual({ role: 'owner', disabled_at: null });
  });

  it('an admin’s invitations die with their access: disabled, their own second address gets nothing', async () => {
    const owner = await signedIn('owner');
    const admin = await signedIn('admin');
    await admin.browser.get('/dashboard/team');
    const second = `second-${seq++}@roles.example`;
    const invited = await admin.browser.post('/dashboard/team/invite', {
      email: second,
      role: 'admin',
    });
    expect(invited.status).toBe(200);
    const path = invitationPathFor(stack, second)!;
    const invitee = agent();
    expect((await invitee.get(path)).status).toBe(200);

    await owner.browser.get('/dashboard/team');
    expect((await owner.browser.post(`/dashboard/team/users/${admin.id}/disable`, {})).status).toBe(
      303,
    );
    const opened = await agent().get(path);
    expect(opened.status).toBe(404);
    expect(opened.html).toContain(DashboardMessages.en.inviteInvalid);
    // The form opened before the disabling is refused the same way, and makes no account.
    const sent = await invitee.post(path, { password: 'a long enough passphrase' });
    expect(sent.status).toBe(404);
    expect(sent.html).toContain(DashboardMessages.en.inviteInvalid);
    const [event] = await stack.gateway.runtime.sql<{ details: Record<string, unknown> }[]>`
      select details from audit_events
      where merchant_id = ${shop.id} and action = 'team.user_disable' and target = ${admin.email}`;
    expect(event?.details).toEqual({ role: 'admin', invitesRevoked: 1 });
  });
});

describe('API keys and who issued them', () => {
  /** What the gateway answers a key on the merchant API. */
  const apiStatus = async (key: string) =>
    (await fetch(`${stack.gateway.url}/api/v1/payments?limit=1`, { headers: { 'x-api-key': key } }))
      .status;
  const issueKey = async (browser: DashboardAgent) => {
    await browser.get('/dashboard/api-keys');
    const issued = await browser.post('/dashboard/api-keys', { label: 'issuer test' });
    return { status: issued.status, key: textOf(issued.html, 'new-key'), html: issued.html };
  };
  const toMode = async (browser: DashboardAgent, mode: 'test' | 'live') => {
    await browser.get('/dashboard/payments');
    await browser.post('/dashboard/mode', { mode, next: '/dashboard/api-keys' });
  };
  const revokedBy = async (action: string, email: string) => {
    const [event] = await stack.gateway.runtime.sql<{ details: Record<string, unknown> }[]>`
      select details from audit_events
      where merchant_id = ${shop.id} and action = ${action} and target = ${email}`;
    return event?.details.keysRevoked;
  };

  it('a developer issues test keys, never live ones; disabled, their key stops at once', async () => {
    const owner = await signedIn('owner');
    const developer = await signedIn('developer');
    await toMode(developer.browser, 'live');
    const page = await developer.browser.get('/dashboard/api-keys');
    expect(page.html).not.toContain('name="label"');
    expect(page.html).toContain(
      DashboardMessages.en.keyModeRefused(DashboardMessages.en.roleNames.developer),
    );
    const live = await issueKey(developer.browser);
    expect(live.status).toBe(403);
    expect(live.key).toBeUndefined();

    await toMode(developer.browser, 'test');
    const test = await issueKey(developer.browser);
    expect(test.status).toBe(200);
    expect(test.key).toMatch(/^pk_test_/);
    expect(await apiStatus(test.key!)).toBe(200);
    const listed = await owner.browser.get('/dashboard/api-keys');
    expect(listed.html).toContain(developer.email);

    await owner.browser.get('/dashboard/team');
    expect(
      (await owner.browser.post(`/dashboard/team/users/${developer.id}/disable`, {})).status,
    ).toBe(303);
    await expect.poll(() => apiStatus(test.key!), { timeout: 10_000 }).toBe(401);
    expect(await revokedBy('team.user_disable', developer.email)).toBe(1);
  });

  it('an admin demoted to developer loses the live keys they issued, keeps the test ones', async () => {
    const owner = await signedIn('owner');
    const admin = await signedIn('admin');
    const test = await issueKey(admin.browser);
    await toMode(admin.browser, 'live');
    const live = await issueKey(admin.browser);
    expect(live.key).toMatch(/^pk_live_/);
    expect(await apiStatus(live.key!)).toBe(200);

    await owner.browser.get('/dashboard/team');
    await owner.browser.post(`/dashboard/team/users/${admin.id}/role`, { role: 'developer' });
    await expect.poll(() => apiStatus(live.key!), { timeout: 10_000 }).toBe(401);
    expect(await apiStatus(test.key!)).toBe(200);
    expect(await revokedBy('team.role_change', admin.email)).toBe(1);
  });
});
