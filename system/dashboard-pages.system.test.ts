import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardUsers } from '@dzpay/accounts';
import { userProgram } from '../tools/admin-cli/src/user-commands.ts';
import { startStack, type Stack } from './support/stack.ts';
import { DashboardMessages } from '../services/dashboard/src/messages.ts';
import {
  createDashboardUser,
  DashboardAgent,
  invitationPathFor,
  textOf,
} from './support/dashboard-agent.ts';

// The dashboard's own pages over real HTTP (real Redis, Postgres, payments): the CLI's
// first user, invitations, API keys, and that one merchant's users never reach
// another's data.

let stack: Stack;
type Merchant = Awaited<ReturnType<Stack['merchant']>>;
let shopA: Merchant;
let shopB: Merchant;
const password = 'correct horse battery staple';

const agent = () => new DashboardAgent(stack.dashboard!.url, { 'accept-language': 'en' });

async function signedIn(merchant: Merchant, email: string): Promise<DashboardAgent> {
  await createDashboardUser(stack, merchant.id, email, password);
  const browser = agent();
  expect((await browser.login(email, password)).status).toBe(303);
  return browser;
}

beforeAll(async () => {
  stack = await startStack('dashboard-pages', {}, { withPayments: true, withDashboard: true });
  shopA = await stack.merchant('Épicerie Oran');
  shopB = await stack.merchant('Pharmacie Annaba');
}, 90_000);
afterAll(() => stack?.stop());

describe('the user command line', () => {
  async function run(args: string[], password?: string) {
    const lines: string[] = [];
    const program = userProgram({
      users: () => Promise.resolve(dashboardUsers(stack.dashboard!.runtime.sql)),
      password: () => password,
      print: (text) => lines.push(text),
    });
    program.configureOutput({ writeErr: (text) => lines.push(text), writeOut: () => {} });
    const outcome = await program
      .parseAsync(['node', 'dzpay', ...args])
      .then(() => 'ok')
      .catch(() => 'failed');
    return { outcome, output: lines.join('\n') };
  }

  it('creates the first user from DZPAY_USER_PASSWORD, who can then sign in', async () => {
    const made = await run(['user', 'create', shopA.id, 'first@oran.example'], password);
    expect(made.outcome).toBe('ok');
    expect(made.output).toContain('first@oran.example');
    expect((await agent().login('first@oran.example', password)).status).toBe(303);
    const listed = await run(['--json', 'user', 'list', shopA.id]);
    expect(JSON.parse(listed.output)).toEqual([
      expect.objectContaining({ email: 'first@oran.example', disabledAt: null }),
    ]);
  });

  it('refuses a short or missing password, a taken email and an unknown merchant', async () => {
    expect((await run(['user', 'create', shopA.id, 'x@oran.example'])).output).toContain(
      'DZPAY_USER_PASSWORD',
    );
    expect((await run(['user', 'create', shopA.id, 'x@oran.example'], 'short')).output).toContain(
      'at least 12',
    );
    expect(
      (await run(['user', 'create', shopB.id, 'FIRST@oran.example'], password)).output,
    ).toContain('already has a dashboard user');
    const unknown = await run(
      ['user', 'create', '00000000-0000-4000-8000-000000000000', 'y@oran.example'],
      password,
    );
    expect(unknown.outcome).toBe('failed');
    expect(unknown.output).toContain('no merchant');
  });

  it('disables a user: their open session ends at once, and they cannot sign in', async () => {
    const browser = await signedIn(shopA, 'leaving@oran.example');
    expect((await browser.get('/dashboard/team')).status).toBe(200);
    expect((await run(['user', 'disable', 'leaving@oran.example'])).outcome).toBe('ok');
    expect((await browser.get('/dashboard/team')).status).toBe(303);
    expect((await agent().login('leaving@oran.example', password)).status).toBe(401);
  });
});

describe('invitations', () => {
  it('makes a one-time link that lets the invitee choose a password and sign in', async () => {
    const owner = await signedIn(shopA, 'owner@oran.example');
    await owner.get('/dashboard/team');
    const invited = await owner.post('/dashboard/team/invite', { email: 'Nadia@oran.example' });
    expect(invited.status).toBe(200);
    expect(invited.html).not.toContain('/dashboard/invite/');
    // The link is mailed to the invitee, in the inviter's language, under the public URL.
    const mail = stack.dashboardMail!.messages.at(-1)!;
    expect(mail.subject).toContain('Épicerie Oran');
    expect(mail.text).toMatch(
      new RegExp(`${stack.gateway.url}/dashboard/invite/[A-Za-z0-9_-]{43}\\?lang=en`),
    );
    const path = invitationPathFor(stack, 'Nadia@oran.example')!.split('?')[0]!;

    const invitee = agent();
    const form = await invitee.get(path);
    expect(form.status).toBe(200);
    expect(form.html).toContain('Épicerie Oran');
    expect(form.html).toContain('Nadia@oran.example');
    expect((await invitee.post(path, { password: 'too short' })).status).toBe(400);
    const accepted = await invitee.post(path, { password: 'a long enough passphrase' });
    expect(accepted.status).toBe(303);
    expect(accepted.location).toContain('/dashboard/login?joined=1');

    // The link worked once.
    expect((await agent().get(path)).status).toBe(404);
    const again = agent();
    await again.get(`${path}?lang=en`);
    expect((await again.post(path, { password: 'another long passphrase' })).status).toBe(404);

    const nadia = agent();
    expect((await nadia.login('nadia@oran.example', 'a long enough passphrase')).status).toBe(303);
    const team = await nadia.get('/dashboard/team');
    expect(team.html).toContain('Épicerie Oran');
    expect(team.html).toContain('owner@oran.example');
  });

  it('refuses an invitation for an email already in the team, or no email', async () => {
    const owner = await signedIn(shopA, 'owner2@oran.example');
    await owner.get('/dashboard/team');
    const taken = await owner.post('/dashboard/team/invite', { email: 'OWNER@oran.example' });
    expect(taken.status).toBe(409);
    expect(taken.html).toContain('This email is already in your team.');
    expect(invitationPathFor(stack, 'OWNER@oran.example')).toBeUndefined();
    const bad = await owner.post('/dashboard/team/invite', { email: 'not an email' });
    expect(bad.status).toBe(400);
  });

  it('does not tell one merchant that an email has an account at another', async () => {
    await createDashboardUser(stack, shopA.id, 'elsewhere@oran.example', password);
    const pharmacist = await signedIn(shopB, 'pharmacist@annaba.example');
    await pharmacist.get('/dashboard/team');
    const answers = [];
    for (const email of ['ELSEWHERE@oran.example', 'nobody-yet@annaba.example']) {
      const invited = await pharmacist.post('/dashboard/team/invite', { email });
      answers.push(invited);
      expect(invited.status).toBe(200);
      expect(invited.html).not.toContain('already');
      expect(invitationPathFor(stack, email)).toMatch(/^\/dashboard\/invite\/[A-Za-z0-9_-]{43}\?/);
    }
    // Its link opens like any other; choosing a password there is refused, and the
    // account stays where it was.
    const path = invitationPathFor(stack, 'ELSEWHERE@oran.example')!;
    const invitee = agent();
    const form = await invitee.get(path);
    expect(form.status).toBe(200);
    expect(form.html).toContain('Pharmacie Annaba');
    const refused = await invitee.post(path, { password: 'the pharmacy passphrase' });
    expect(refused.status).toBe(409);
    const owner = agent();
    expect((await owner.login('elsewhere@oran.example', password)).status).toBe(303);
    expect((await owner.get('/dashboard/team')).html).toContain('Épicerie Oran');
    expect((await agent().login('elsewhere@oran.example', 'the pharmacy passphrase')).status).toBe(
      401,
    );
    expect((await pharmacist.get('/dashboard/team')).html).not.toContain('elsewhere@oran.example');
  });

  it('claims nobody’s email: the link goes only to the mailbox, so another merchant can still invite them', async () => {
    // Merchant A's owner invites merchant B's accountant, hoping to accept it themselves.
    const owner = await signedIn(shopA, 'claimer@oran.example');
    await owner.get('/dashboard/team');
    const claim = await owner.post('/dashboard/team/invite', { email: 'cfo@cabinet-b.example' });
    expect(claim.status).toBe(200);
    expect(claim.html).not.toContain('/dashboard/invite/');
    const claimPath = invitationPathFor(stack, 'cfo@cabinet-b.example')!;
    expect(claim.html).not.toContain(claimPath.split('?')[0]!.split('/').at(-1)!);

    // Merchant B invites the same person, who accepts B's mail: an account at B.
    const pharmacist = await signedIn(shopB, 'hr@annaba.example');
    await pharmacist.get('/dashboard/team');
    expect(
      (await pharmacist.post('/dashboard/team/invite', { email: 'cfo@cabinet-b.example' })).status,
    ).toBe(200);
    const path = invitationPathFor(stack, 'cfo@cabinet-b.example')!;
    expect(path).not.toBe(claimPath);
    const cfo = agent();
    await cfo.get(path);
    expect((await cfo.post(path, { password: 'the accountant passphrase' })).status).toBe(303);
    const signed = agent();
    expect((await signed.login('cfo@cabinet-b.example', 'the accountant passphrase')).status).toBe(
      303,
    );
    expect((await signed.get('/dashboard/team')).html).toContain('Pharmacie Annaba');
    // A's invitation, still in the mailbox, makes no second account.
    const late = agent();
    await late.get(claimPath);
    expect((await late.post(claimPath, { password: 'a claimer passphrase' })).status).toBe(409);
  });

  it('sends an invitation again as a new link, the older one dead; a mail server that refuses sends none', async () => {
    const owner = await signedIn(shopA, 'resender@oran.example');
    await owner.get('/dashboard/team');
    await owner.post('/dashboard/team/invite', { email: 'twice@oran.example' });
    const first = invitationPathFor(stack, 'twice@oran.example')!;
    await owner.post('/dashboard/team/invite', { email: 'twice@oran.example' });
    const second = invitationPathFor(stack, 'twice@oran.example')!;
    expect(second).not.toBe(first);
    expect((await agent().get(first)).status).toBe(404);
    expect((await agent().get(second)).status).toBe(200);

    stack.dashboardMail!.refuseWith(550);
    try {
      const refused = await owner.post('/dashboard/team/invite', {
        email: 'unmailed@oran.example',
      });
      expect(refused.status).toBe(502);
      expect(refused.html).toContain(DashboardMessages.en.inviteNotMailed);
    } finally {
      stack.dashboardMail!.refuseWith(null);
    }
    const team = await owner.get('/dashboard/team');
    expect(team.html).not.toContain('unmailed@oran.example');
  });

  it('refuses an invitation whose email got an account meanwhile, and makes none', async () => {
    const owner = await signedIn(shopB, 'inviter@annaba.example');
    await owner.get('/dashboard/team');
    await owner.post('/dashboard/team/invite', { email: 'late@elsewhere.example' });
    const path = invitationPathFor(stack, 'late@elsewhere.example')!;
    const invitee = agent();
    expect((await invitee.get(path)).status).toBe(200);
    await createDashboardUser(stack, shopA.id, 'Late@elsewhere.example', password);
    const refused = await invitee.post(path, { password: 'a passphrase of my own' });
    expect(refused.status).toBe(409);
    const users = await dashboardUsers(stack.dashboard!.runtime.sql).listOfMerchant(shopB.id);
    expect(users.map((u) => u.email.toLowerCase())).not.toContain('late@elsewhere.example');
  });

  it('refuses an acceptance whose form cookie and field were planted, equal', async () => {
    const owner = await signedIn(shopA, 'owner3@oran.example');
    await owner.get('/dashboard/team');
    await owner.post('/dashboard/team/invite', { email: 'planted@oran.example' });
    const path = invitationPathFor(stack, 'planted@oran.example')!;
    const invitee = agent();
    const planted = 'P'.repeat(43);
    for (const name of ['__Host-dzpay_dashboard_form', 'dzpay_dashboard_form']) {
      invitee.cookies.set(name, planted);
    }
    const refused = await invitee.post(path, {
      password: 'a long enough passphrase',
      _csrf: planted,
    });
    expect(refused.status).toBe(403);
    // The link is still good for the real invitee.
    const real = agent();
    await real.get(path);
    expect((await real.post(path, { password: 'a long enough passphrase' })).status).toBe(303);
  });

  it('answers 404 for a made-up invitation', async () => {
    const page = await agent().get(`/dashboard/invite/${'A'.repeat(43)}`);
    expect(page.status).toBe(404);
    expect(page.html).toContain('invalid, already used or expired');
  });
});

describe('API keys', () => {
  it('issues a key shown once that works on the API, and revokes it after confirming', async () => {
    const browser = await signedIn(shopA, 'keys@oran.example');
    await browser.get('/dashboard/api-keys');
    const issued = await browser.post('/dashboard/api-keys', { label: 'Caisse 2' });
    expect(issued.status).toBe(200);
    const key = textOf(issued.html, 'new-key')!;
    expect(key).toMatch(/^pk_test_[A-Za-z0-9_-]{43}$/);

    const issuedList = await browser.get('/dashboard/api-keys');
    expect(issuedList.html).toContain('Never');
    const works = await stack.get('/api/v1/payments?limit=1', { 'x-api-key': key });
    expect(works.status).toBe(200);

    // The gateway writes the use down off the request's path: "Last used" follows.
    await expect
      .poll(async () => rowOf((await browser.get('/dashboard/api-keys')).html, key.slice(0, 12)), {
        timeout: 5_000,
      })
      .not.toContain('Never');
    const list = await browser.get('/dashboard/api-keys');
    expect(list.html).toContain('Last used');
    expect(list.html).toContain('Caisse 2');
    expect(list.html).toContain(key.slice(0, 12));
    expect(list.html).not.toContain(key);
    const revokeLink = new RegExp(
      `href="(/dashboard/api-keys/[0-9a-f-]{36}/revoke)">Revoke<span class="sr-only"> ${key.slice(0, 12)}`,
    ).exec(list.html)![1]!;
    const confirm = await browser.get(revokeLink);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('Revoke this key?');
    const revoked = await browser.post(revokeLink, {});
    expect(revoked.status).toBe(303);
    const after = await browser.get('/dashboard/api-keys');
    expect(after.html).toContain('The key was revoked.');

    // Every gateway forgets the key's owner through the accounts trigger: 401 soon.
    await expect
      .poll(
        async () => (await stack.get('/api/v1/payments?limit=1', { 'x-api-key': key })).status,
        {
          timeout: 5_000,
        },
      )
      .toBe(401);
    // The merchant's other keys still work.
    expect(
      (await stack.get('/api/v1/payments?limit=1', { 'x-api-key': shopA.testKey })).status,
    ).toBe(200);
  });

  it('refuses a label longer than 100 characters', async () => {
    const browser = await signedIn(shopA, 'label@oran.example');
    await browser.get('/dashboard/api-keys');
    const refused = await browser.post('/dashboard/api-keys', { label: 'x'.repeat(101) });
    expect(refused.status).toBe(400);
    expect(refused.html).not.toContain('new-key');
  });
});

describe('one merchant never reaches another', () => {
  it("answers 404 for another merchant's key, and leaves it working", async () => {
    const browser = await signedIn(shopA, 'curious@oran.example');
    const [bTestKeyId] = shopB.keyIds;
    expect((await browser.get(`/dashboard/api-keys/${bTestKeyId}/revoke`)).status).toBe(404);
    await browser.get('/dashboard/api-keys');
    const post = await browser.post(`/dashboard/api-keys/${bTestKeyId}/revoke`, {});
    expect(post.status).toBe(404);
    expect((await browser.get(`/dashboard/api-keys/not-a-uuid/revoke`)).status).toBe(404);
    expect(
      (await stack.get('/api/v1/payments?limit=1', { 'x-api-key': shopB.testKey })).status,
    ).toBe(200);
    const list = await browser.get('/dashboard/api-keys');
    expect(list.html).not.toContain(shopB.testKey.slice(0, 12));
  });

  it("answers 404 for another merchant's payment, and lists only its own", async () => {
    const reference = `B-${Date.now()}`;
    const registered = await stack.post(
      '/api/v1/payments',
      {
        amount: 250_000,
        currency: 'DZD',
        reference,
        successUrl: 'https://shop.example/ok',
        failureUrl: 'https://shop.example/ko',
      },
      { 'x-api-key': shopB.testKey },
    );
    expect(registered.status).toBe(201);
    const paymentId = ((await registered.json()) as { data: { id: string } }).data.id;

    const intruder = await signedIn(shopA, 'intruder@oran.example');
    const page = await intruder.get(`/dashboard/payments/${paymentId}`);
    expect(page.status).toBe(404);
    expect(page.html).not.toContain(reference);
    const list = await intruder.get('/dashboard/payments');
    expect(list.status).toBe(200);
    expect(list.html).not.toContain(paymentId);

    const owner = await signedIn(shopB, 'owner@annaba.example');
    const own = await owner.get(`/dashboard/payments/${paymentId}`);
    expect(own.status).toBe(200);
    expect(own.html).toContain(reference);
  });

  it("lists only the merchant's own team", async () => {
    await createDashboardUser(stack, shopB.id, 'secret-colleague@annaba.example', password);
    const browser = await signedIn(shopA, 'team-a@oran.example');
    const team = await browser.get('/dashboard/team');
    expect(team.html).toContain('team-a@oran.example');
    expect(team.html).not.toContain('annaba.example');
  });
});

/** The table row of the key whose prefix is shown. */
function rowOf(html: string, prefix: string): string {
  return (
    /<tr>(?:(?!<\/tr>)[\s\S])*<\/tr>/g.exec(
      html.slice(html.lastIndexOf('<tr>', html.indexOf(prefix))),
    )?.[0] ?? ''
  );
}
