import { auditLog, dashboardUsers, type DashboardUsers } from '@dzpay/accounts';
import { connectPostgres, type Sql } from '@dzpay/platform';
import { migrateService } from '@dzpay/stack';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteTokenHash } from '../src/auth-pages.ts';

// The team's roles, invitations and the audit log's pages (libs/accounts, gateway
// migrations 010 and 011) against the real Postgres, in this file's own database.

let infra: IsolatedInfra;
let sql: Sql;
let users: DashboardUsers;

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

beforeAll(async () => {
  infra = await isolatedInfra('team-users');
  sql = connectPostgres(infra.databaseUrl, 'accounts', 6);
  await migrateService(sql, 'dashboard');
  users = dashboardUsers(sql);
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
    const changed = await users.setRole(shop, accountant.id, 'developer');
    expect(changed).toMatchObject({ previous: 'accountant', user: { role: 'developer' } });
    expect((await users.findActive(accountant.id, shop))?.role).toBe('developer');
  });

  it('never leaves a merchant without an enabled owner, even when two owners demote each other at once', async () => {
    const shop = await merchant('Pharmacie');
    const a = await member(shop, 'a@pharma.dz', 'owner');
    const b = await member(shop, 'b@pharma.dz', 'owner');
    const outcomes = await Promise.all([
      users.setRole(shop, a.id, 'admin'),
      users.setRole(shop, b.id, 'admin'),
    ]);
    expect(outcomes.filter((o) => 'problem' in o)).toEqual([{ problem: 'last-owner' }]);
    const owners = (await users.listOfMerchant(shop)).filter((u) => u.role === 'owner');
    expect(owners).toHaveLength(1);
    expect(await users.setDisabled(shop, owners[0]!.id, true)).toEqual({ problem: 'last-owner' });
    // A disabled owner is no owner for this count.
    const c = await member(shop, 'c@pharma.dz', 'owner');
    const disabled = await users.setDisabled(shop, c.id, true);
    expect('user' in disabled && disabled.user.disabledAt instanceof Date).toBe(true);
    expect(await users.setRole(shop, owners[0]!.id, 'admin')).toEqual({ problem: 'last-owner' });
    expect(await users.setDisabled(shop, c.id, false)).toMatchObject({
      user: { disabledAt: null },
    });
    expect((await users.findActive(c.id, shop))?.role).toBe('owner');
  });

  it("answers nothing for another merchant's user or a malformed id", async () => {
    const mine = await merchant('Mine');
    const theirs = await merchant('Theirs');
    const stranger = await member(theirs, 'x@theirs.dz', 'developer');
    expect(await users.findUserOf(mine, stranger.id)).toBeNull();
    expect(await users.setRole(mine, stranger.id, 'owner')).toEqual({ problem: 'not-found' });
    expect(await users.setDisabled(mine, 'not-a-uuid', true)).toEqual({ problem: 'not-found' });
    expect((await users.findUserOf(theirs, stranger.id))?.role).toBe('developer');
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
