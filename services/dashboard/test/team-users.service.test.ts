import {
  apiKeysTable,
  auditLog,
  dashboardUsers,
  issueApiKey,
  type ApiKeysTable,
  type DashboardUsers,
} from '@dzpay/accounts';
import type { Mode } from '@dzpay/contracts';
import { connectPostgres, type Sql } from '@dzpay/platform';
import { migrateService } from '@dzpay/stack';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteTokenHash } from '../src/pages/auth-pages.ts';
import { changeCheck } from '../src/pages/team-rules.ts';

// The team's roles, invitations and the audit log's pages (libs/accounts, gateway
// migrations 010 and 011) against the real Postgres, in this file's own database.

let infra: IsolatedInfra;
let sql: Sql;
let users: DashboardUsers;
let keys: ApiKeysTable;

async function merchant(name: string): Promise<string> {
  const [row] = await sql<
    { id: string }[]
  >`insert into merchants (name) values (${name}) returning id`;
  return row!.id;
}

async function member(
  merchantId: string,
  email: string,
  role: Parameters<DashboardUsers['create']>[3],
) {
  const created = await users.create(merchantId, email, 'hash', role);
  if ('problem' in created) throw new Error(created.problem);
  return created.user;
}

const asRole = (to: Parameters<DashboardUsers['create']>[3]) =>
  changeCheck({ kind: 'role', to: to! });
const disable = changeCheck({ kind: 'disable' });
const enable = changeCheck({ kind: 'enable' });

beforeAll(async () => {
  infra = await isolatedInfra('team-users');
  sql = connectPostgres(infra.databaseUrl, 'accounts', 6);
  await migrateService(sql, 'dashboard');
  users = dashboardUsers(sql);
  keys = apiKeysTable(sql);
});
afterAll(async () => {
  await sql?.end();
  await infra?.cleanup();
});

describe('roles', () => {
  it('makes an operator’s user an owner unless told otherwise, and every request reads the role', async () => {
    const shop = await merchant('Librairie');
    const owner = await member(shop, 'owner@lib.dz', undefined);
    expect(owner.role).toBe('owner');
    const accountant = await member(shop, 'compta@lib.dz', 'accountant');
    expect((await users.findActive(accountant.id, shop))?.role).toBe('accountant');
    const changed = await users.setRole(
      shop,
      owner.id,
      accountant.id,
      'developer',
      asRole('developer'),
    );
    expect(changed).toMatchObject({ previous: 'accountant', user: { role: 'developer' } });
    expect((await users.findActive(accountant.id, shop))?.role).toBe('developer');
  });

  it('never leaves a merchant without an enabled owner, even when two owners demote each other at once', async () => {
    const shop = await merchant('Pharmacie');
    const a = await member(shop, 'a@pharma.dz', 'owner');
    const b = await member(shop, 'b@pharma.dz', 'owner');
    const outcomes = await Promise.all([
      users.setRole(shop, b.id, a.id, 'admin', asRole('admin')),
      users.setRole(shop, a.id, b.id, 'admin', asRole('admin')),
    ]);
    // The second to take the lock finds its actor an admin now: refused before the
    // last-owner count is even needed.
    expect(outcomes.filter((o) => 'problem' in o)).toEqual([{ problem: 'owner-only' }]);
    const owners = (await users.listOfMerchant(shop)).filter((u) => u.role === 'owner');
    expect(owners).toHaveLength(1);
    const last = owners[0]!.id;
    // Rules that let anyone do anything: the last-owner rule holds on its own (the team's
    // rules never reach it, an owner changing an owner being one left).
    const anything = () => null;
    expect(await users.setDisabled(shop, last, last, true, anything)).toEqual({
      problem: 'last-owner',
    });
    // A disabled owner is no owner for this count.
    const c = await member(shop, 'c@pharma.dz', 'owner');
    const disabled = await users.setDisabled(shop, last, c.id, true, disable);
    expect('user' in disabled && disabled.user.disabledAt instanceof Date).toBe(true);
    expect(await users.setRole(shop, last, last, 'admin', anything)).toEqual({
      problem: 'last-owner',
    });
    expect(await users.setDisabled(shop, last, c.id, false, enable)).toMatchObject({
      user: { disabledAt: null },
      wasDisabled: true,
    });
    expect((await users.findActive(c.id, shop))?.role).toBe('owner');
  });

  it('keeps the last-owner count under the lock, whatever rules the caller brings', async () => {
    const shop = await merchant('Parfumerie');
    const a = await member(shop, 'a@parf.dz', 'owner');
    const b = await member(shop, 'b@parf.dz', 'owner');
    const anything = () => null;
    const outcomes = await Promise.all([
      users.setRole(shop, b.id, a.id, 'admin', anything),
      users.setDisabled(shop, a.id, b.id, true, anything),
    ]);
    expect(outcomes.filter((o) => 'problem' in o)).toEqual([{ problem: 'last-owner' }]);
    const owners = await sql`
      select 1 from dashboard_users
      where merchant_id = ${shop} and role = 'owner' and disabled_at is null`;
    expect(owners).toHaveLength(1);
  });

  it("answers nothing for another merchant's user or a malformed id", async () => {
    const mine = await merchant('Mine');
    const theirs = await merchant('Theirs');
    const stranger = await member(theirs, 'x@theirs.dz', 'developer');
    expect(await users.findUserOf(mine, stranger.id)).toBeNull();
    const boss = await member(mine, 'boss@mine.dz', 'owner');
    expect(await users.setRole(mine, boss.id, stranger.id, 'owner', asRole('owner'))).toEqual({
      problem: 'not-found',
    });
    expect(await users.setDisabled(mine, boss.id, 'not-a-uuid', true, disable)).toEqual({
      problem: 'not-found',
    });
    expect((await users.findUserOf(theirs, stranger.id))?.role).toBe('developer');
  });
});

describe('the team rules, under the lock', () => {
  // The page no longer decides on what it read before writing: each scenario below is a
  // change committed between that read and the write, which the write must see.

  it('refuse an admin a colleague promoted to owner since the admin’s page read them', async () => {
    const shop = await merchant('Quincaillerie');
    const owner = await member(shop, 'owner@quin.dz', 'owner');
    const admin = await member(shop, 'admin@quin.dz', 'admin');
    const target = await member(shop, 'target@quin.dz', 'admin');
    // The admin's page read the target: an admin, theirs to demote or disable.
    expect((await users.findUserOf(shop, target.id))?.role).toBe('admin');
    // Meanwhile an owner promotes the target.
    expect(await users.setRole(shop, owner.id, target.id, 'owner', asRole('owner'))).toMatchObject({
      user: { role: 'owner' },
    });
    // The admin's write now meets an owner.
    expect(
      await users.setRole(shop, admin.id, target.id, 'developer', asRole('developer')),
    ).toEqual({ problem: 'owner-only' });
    expect(await users.setDisabled(shop, admin.id, target.id, true, disable)).toEqual({
      problem: 'owner-only',
    });
    expect(await users.findActive(target.id, shop)).toMatchObject({ role: 'owner' });
  });

  it('reread the actor: one demoted or disabled since their page was read changes nobody', async () => {
    const shop = await merchant('Papeterie');
    const owner = await member(shop, 'owner@pap.dz', 'owner');
    const admin = await member(shop, 'admin@pap.dz', 'admin');
    const dev = await member(shop, 'dev@pap.dz', 'developer');
    await users.setRole(shop, owner.id, admin.id, 'accountant', asRole('accountant'));
    expect(await users.setDisabled(shop, admin.id, dev.id, true, disable)).toEqual({
      problem: 'not-manager',
    });
    await users.setRole(shop, owner.id, admin.id, 'admin', asRole('admin'));
    await users.setDisabled(shop, owner.id, admin.id, true, disable);
    expect(await users.setRole(shop, admin.id, dev.id, 'accountant', asRole('accountant'))).toEqual(
      { problem: 'not-manager' },
    );
    // Someone of another merchant is nobody here.
    const stranger = await member(await merchant('Ailleurs'), 'boss@ailleurs.dz', 'owner');
    expect(await users.setDisabled(shop, stranger.id, dev.id, true, disable)).toEqual({
      problem: 'not-manager',
    });
    expect(await users.findActive(dev.id, shop)).toMatchObject({ role: 'developer' });
  });

  it('still refuse changing oneself', async () => {
    const shop = await merchant('Mercerie');
    const owner = await member(shop, 'owner@mer.dz', 'owner');
    await member(shop, 'owner2@mer.dz', 'owner');
    expect(await users.setRole(shop, owner.id, owner.id, 'admin', asRole('admin'))).toEqual({
      problem: 'self',
    });
  });
});

describe('invitations', () => {
  const token = (n: number) => inviteTokenHash(`token-${n}-${Date.now()}`);

  it('carry their role into the account they make, and are listed until used', async () => {
    const shop = await merchant('Épicerie');
    const owner = await member(shop, 'owner@epi.dz', 'owner');
    const hash = token(1);
    await users.createInvite({
      merchantId: shop,
      email: 'dev@epi.dz',
      role: 'developer',
      tokenHash: hash,
      invitedBy: owner.id,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    expect(await users.pendingInvites(shop)).toEqual([
      expect.objectContaining({ email: 'dev@epi.dz', role: 'developer' }),
    ]);
    const accepted = await users.acceptInvite(hash, 'hash');
    expect(accepted).toMatchObject({ user: { email: 'dev@epi.dz', role: 'developer' } });
    expect(await users.pendingInvites(shop)).toEqual([]);
  });

  it('once revoked, open nothing and make no account; another merchant cannot revoke them', async () => {
    const shop = await merchant('Boulangerie');
    const other = await merchant('Autre');
    const owner = await member(shop, 'owner@boul.dz', 'owner');
    const hash = token(2);
    const { id } = await users.createInvite({
      merchantId: shop,
      email: 'late@boul.dz',
      role: 'accountant',
      tokenHash: hash,
      invitedBy: owner.id,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    expect(await users.revokeInvite(other, id)).toBeNull();
    expect(await users.revokeInvite(shop, id)).toEqual({
      email: 'late@boul.dz',
      role: 'accountant',
    });
    expect(await users.revokeInvite(shop, id)).toBeNull();
    expect((await users.findInvite(hash))?.usable).toBe(false);
    expect(await users.acceptInvite(hash, 'hash')).toEqual({ problem: 'invalid' });
    expect(await users.inTeam(shop, 'late@boul.dz')).toBe(false);
  });
});

describe('an invitation’s inviter', () => {
  const hashOf = (n: number) => inviteTokenHash(`inviter-${n}-${Date.now()}`);
  let n = 0;

  async function invite(shop: string, by: string, role: Parameters<DashboardUsers['create']>[3]) {
    const tokenHash = hashOf(n++);
    const email = `guest-${n}@inviter.dz`;
    const { id } = await users.createInvite({
      merchantId: shop,
      email,
      role: role!,
      tokenHash,
      invitedBy: by,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    return { id, tokenHash, email };
  }

  it('once disabled, their links make no account, not even those sent before', async () => {
    const shop = await merchant('Droguerie');
    const owner = await member(shop, 'owner@drog.dz', 'owner');
    const admin = await member(shop, 'admin@drog.dz', 'admin');
    // The admin invites their own second address as admin, then is disabled.
    const own = await invite(shop, admin.id, 'admin');
    const changed = await users.setDisabled(shop, owner.id, admin.id, true, disable);
    expect(changed).toMatchObject({ invitesRevoked: 1 });
    expect(await users.pendingInvites(shop)).toEqual([]);
    expect((await users.findInvite(own.tokenHash))?.usable).toBe(false);
    expect(await users.acceptInvite(own.tokenHash, 'hash')).toEqual({ problem: 'invalid' });
    expect(await users.inTeam(shop, own.email)).toBe(false);
  });

  it('is checked when the link is used, whatever the invitation’s state says', async () => {
    // An invitation left pending (sent before revocation existed, or its inviter changed
    // by the admin CLI, which revokes nothing) still needs an inviter allowed to send it.
    const shop = await merchant('Bijouterie');
    const admin = await member(shop, 'admin@bij.dz', 'admin');
    const pending = await invite(shop, admin.id, 'admin');
    await users.disable('admin@bij.dz');
    expect((await users.findInvite(pending.tokenHash))?.usable).toBe(false);
    expect(await users.acceptInvite(pending.tokenHash, 'hash')).toEqual({ problem: 'invalid' });

    // An owner's invitation needs an owner still: one demoted to admin cannot use it.
    const owner = await member(shop, 'owner@bij.dz', 'owner');
    const forOwner = await invite(shop, owner.id, 'owner');
    const forAdmin = await invite(shop, owner.id, 'admin');
    await sql`update dashboard_users set role = 'admin' where id = ${owner.id}`;
    expect(await users.acceptInvite(forOwner.tokenHash, 'hash')).toEqual({ problem: 'invalid' });
    expect(await users.acceptInvite(forAdmin.tokenHash, 'hash')).toMatchObject({
      user: { role: 'admin' },
    });

    // An inviter who is gone (invited_by null) invites nobody.
    const orphan = await invite(shop, owner.id, 'accountant');
    await sql`update dashboard_invites set invited_by = null where id = ${orphan.id}`;
    expect((await users.findInvite(orphan.tokenHash))?.usable).toBe(false);
    expect(await users.acceptInvite(orphan.tokenHash, 'hash')).toEqual({ problem: 'invalid' });
  });

  it('lowered below admin, their pending invitations are revoked; demoted to admin, their owner ones', async () => {
    const shop = await merchant('Fromagerie');
    const owner = await member(shop, 'owner@from.dz', 'owner');
    const other = await member(shop, 'other@from.dz', 'owner');
    const forOwner = await invite(shop, other.id, 'owner');
    const forDev = await invite(shop, other.id, 'developer');
    const demoted = await users.setRole(shop, owner.id, other.id, 'admin', asRole('admin'));
    expect(demoted).toMatchObject({ invitesRevoked: 1 });
    expect((await users.pendingInvites(shop)).map((i) => i.id)).toEqual([forDev.id]);
    expect(await users.acceptInvite(forOwner.tokenHash, 'hash')).toEqual({ problem: 'invalid' });

    const forAccountant = await invite(shop, other.id, 'accountant');
    const lowered = await users.setRole(shop, owner.id, other.id, 'developer', asRole('developer'));
    expect(lowered).toMatchObject({ invitesRevoked: 2 });
    expect(await users.pendingInvites(shop)).toEqual([]);
    expect(await users.acceptInvite(forAccountant.tokenHash, 'hash')).toEqual({
      problem: 'invalid',
    });
    // Promoted back, they invite again; the revoked links stay dead.
    await users.setRole(shop, owner.id, other.id, 'admin', asRole('admin'));
    expect(await users.acceptInvite(forDev.tokenHash, 'hash')).toEqual({ problem: 'invalid' });
    const fresh = await invite(shop, other.id, 'accountant');
    expect(await users.acceptInvite(fresh.tokenHash, 'hash')).toMatchObject({
      user: { role: 'accountant' },
    });
  });
});

describe('API keys and who issued them', () => {
  /** A key issued from the dashboard by `userId`; null when their role may not hold it. */
  const issue = async (merchantId: string, userId: string, mode: Mode) => {
    const issued = issueApiKey(mode);
    const key = await keys.insertKeyIssuedBy(
      { merchantId, mode, hash: issued.hash, displayPrefix: issued.displayPrefix, label: null },
      userId,
    );
    return key && { ...key, hash: issued.hash };
  };
  /** Whether the gateway would still take the key. */
  const works = async (key: { hash: Buffer } | null) =>
    (await keys.findKeyOwner(key!.hash)) !== null;

  it('live keys are for owners and admins; a developer issues test keys; an accountant none', async () => {
    const shop = await merchant('Quincaillerie');
    const owner = await member(shop, 'owner@keys-quin.dz', 'owner');
    const admin = await member(shop, 'admin@keys-quin.dz', 'admin');
    const dev = await member(shop, 'dev@keys-quin.dz', 'developer');
    const books = await member(shop, 'books@keys-quin.dz', 'accountant');
    for (const user of [owner, admin]) {
      expect(await issue(shop, user.id, 'live')).toMatchObject({ issuedBy: user.id });
      expect(await issue(shop, user.id, 'test')).toMatchObject({ issuedBy: user.id });
    }
    expect(await issue(shop, dev.id, 'live')).toBeNull();
    expect(await issue(shop, dev.id, 'test')).toMatchObject({ mode: 'test', issuedBy: dev.id });
    expect(await issue(shop, books.id, 'test')).toBeNull();
    // Nobody of another merchant issues a key for this one.
    const elsewhere = await member(await merchant('Ailleurs'), 'owner@keys-ailleurs.dz', 'owner');
    expect(await issue(shop, elsewhere.id, 'test')).toBeNull();
    const listed = await keys.listKeysOf(shop, 'live');
    expect(new Set(listed.map((key) => key.issuerEmail))).toEqual(
      new Set(['owner@keys-quin.dz', 'admin@keys-quin.dz']),
    );
  });

  it('do not outlive their issuer: demoting revokes what the new role may not hold, disabling all', async () => {
    const shop = await merchant('Librairie');
    const owner = await member(shop, 'owner@keys-lib.dz', 'owner');
    const admin = await member(shop, 'admin@keys-lib.dz', 'admin');
    const ownersKey = await issue(shop, owner.id, 'live');
    const live = await issue(shop, admin.id, 'live');
    const test = await issue(shop, admin.id, 'test');

    const toDeveloper = await users.setRole(
      shop,
      owner.id,
      admin.id,
      'developer',
      asRole('developer'),
    );
    expect(toDeveloper).toMatchObject({ keysRevoked: 1 });
    expect([await works(live), await works(test)]).toEqual([false, true]);

    const toAccountant = await users.setRole(
      shop,
      owner.id,
      admin.id,
      'accountant',
      asRole('accountant'),
    );
    expect(toAccountant).toMatchObject({ keysRevoked: 1 });
    expect(await works(test)).toBe(false);

    // Promoted back, nothing comes back; disabled, every key they issued since goes.
    await users.setRole(shop, owner.id, admin.id, 'admin', asRole('admin'));
    expect([await works(live), await works(test)]).toEqual([false, false]);
    const again = await issue(shop, admin.id, 'live');
    const disabled = await users.setDisabled(shop, owner.id, admin.id, true, disable);
    expect(disabled).toMatchObject({ keysRevoked: 1 });
    expect(await works(again)).toBe(false);
    await users.setDisabled(shop, owner.id, admin.id, false, enable);
    expect(await works(again)).toBe(false);
    // The owner's own key is theirs: untouched by what happened to the admin.
    expect(await works(ownersKey)).toBe(true);
  });

  it('an operator disabling a user by email revokes the keys they issued too', async () => {
    const shop = await merchant('Pâtisserie');
    await member(shop, 'owner@keys-pat.dz', 'owner');
    const dev = await member(shop, 'dev@keys-pat.dz', 'developer');
    const key = await issue(shop, dev.id, 'test');
    expect(await users.disable('DEV@keys-pat.dz')).toMatchObject({ keysRevoked: 1 });
    expect(await works(key)).toBe(false);
    expect(await issue(shop, dev.id, 'test')).toBeNull();
  });

  it('a key issued while its issuer is being demoted is refused or revoked, never kept', async () => {
    const shop = await merchant('Droguerie');
    const owner = await member(shop, 'owner@keys-drog.dz', 'owner');
    for (let round = 0; round < 8; round++) {
      const admin = await member(shop, `admin-${round}@keys-drog.dz`, 'admin');
      const [key] = await Promise.all([
        issue(shop, admin.id, 'live'),
        users.setRole(shop, owner.id, admin.id, 'developer', asRole('developer')),
      ]);
      if (key) expect(await works(key), `round ${round}`).toBe(false);
      const [kept] = await sql<{ n: number }[]>`
        select count(*)::int as n from api_keys
        where issued_by = ${admin.id} and mode = 'live' and revoked_at is null`;
      expect(kept!.n, `round ${round}`).toBe(0);
    }
  });
});

describe('the audit log’s pages', () => {
  it('pages newest first through events of the same instant, each exactly once, by mode and family', async () => {
    const shop = await merchant('Horloger');
    const log = auditLog(sql);
    // Twelve events of one microsecond: only an exact cursor pages through them.
    for (let i = 0; i < 12; i += 1) {
      await sql`
        insert into audit_events (merchant_id, mode, at, actor_kind, actor_id, actor_label, action, target)
        values (${shop}, ${i % 3 === 0 ? null : i % 2 ? 'test' : 'live'}, '2026-11-20T10:00:00.123456Z',
                'user', 'u', 'owner@h.dz', ${i % 4 === 0 ? 'team.invite' : 'payment.refund'}, ${`t${i}`})`;
    }
    const seen: string[] = [];
    let after: { id: string } | undefined;
    for (let page = 0; page < 10; page += 1) {
      const rows = await log.auditPage({ merchantId: shop, limit: 5, ...(after ? { after } : {}) });
      seen.push(...rows.map((row) => row.target!));
      if (rows.length < 5) break;
      after = { id: rows.at(-1)!.id };
    }
    expect(seen.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `t${i}`).sort());

    const live = await log.auditPage({ merchantId: shop, limit: 50, mode: 'live' });
    expect(live.every((row) => row.mode === 'live')).toBe(true);
    const liveAndTeam = await log.auditPage({
      merchantId: shop,
      limit: 50,
      mode: 'live',
      modeless: true,
    });
    expect(liveAndTeam.length).toBe(live.length + 4);
    const team = await log.auditPage({ merchantId: shop, limit: 50, actionPrefix: 'team.' });
    expect(team.map((row) => row.action)).toEqual(Array(3).fill('team.invite'));
    expect(await log.auditPage({ merchantId: await merchant('Vide'), limit: 5 })).toEqual([]);
  });
});
