import { randomUUID } from 'node:crypto';
import { passwordResets, type PasswordResets } from '@dzpay/accounts';
import { connectPostgres, connectRedis, type Redis, type Sql } from '@dzpay/platform';
import { migrateService } from '@dzpay/stack';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordResetThrottle } from '../src/adapters/password-reset-throttle-store.ts';
import { issueResetToken, resetLinkState } from '../src/pages/password-reset-token.ts';

// The reset links' table (libs/accounts password-resets.ts, gateway migration 012) against
// the real Postgres, and the asks' throttle against the real Redis, under this file's own
// database and prefix.

let infra: IsolatedInfra;
let sql: Sql;
let redis: Redis;
let resets: PasswordResets;
let merchantId: string;

const NOW = new Date();
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

async function user(email: string, merchant = merchantId): Promise<string> {
  // The role column comes with the team's roles (migration 011); older schemas have none.
  const [withRole] = await sql<{ n: number }[]>`
    select count(*)::int as n from information_schema.columns
    where table_schema = 'accounts' and table_name = 'dashboard_users' and column_name = 'role'`;
  const [row] = withRole!.n
    ? await sql<{ id: string }[]>`
        insert into dashboard_users (merchant_id, email, password_hash, role)
        values (${merchant}, ${email}, 'old-hash', 'owner') returning id`
    : await sql<{ id: string }[]>`
        insert into dashboard_users (merchant_id, email, password_hash)
        values (${merchant}, ${email}, 'old-hash') returning id`;
  return row!.id;
}

async function link(userId: string, createdAt = NOW, minutes = 30) {
  const issued = issueResetToken(createdAt, minutes);
  await resets.create({
    userId,
    tokenHash: issued.hash,
    createdAt: issued.createdAt,
    expiresAt: issued.expiresAt,
  });
  return issued;
}

const passwordHashOf = async (userId: string) =>
  (
    await sql<{ password_hash: string }[]>`
    select password_hash from dashboard_users where id = ${userId}`
  )[0]!.password_hash;

beforeAll(async () => {
  infra = await isolatedInfra('password-resets');
  sql = connectPostgres(infra.databaseUrl, 'accounts', 4);
  await migrateService(sql, 'dashboard');
  resets = passwordResets(sql);
  redis = connectRedis(infra.redisUrl, infra.redisPrefix);
  const [merchant] = await sql<{ id: string }[]>`
    insert into merchants (name) values ('Librairie Oran') returning id`;
  merchantId = merchant!.id;
});
afterAll(async () => {
  redis?.disconnect();
  await sql?.end();
  await infra?.cleanup();
});

describe('password reset links in Postgres', () => {
  it('keeps the SHA-256 of the token only', async () => {
    const userId = await user('hash@oran.example');
    const issued = await link(userId);
    const rows = await sql`select * from dashboard_password_resets where user_id = ${userId}`;
    expect(rows).toHaveLength(1);
    expect((rows[0]!.token_hash as Buffer).equals(issued.hash)).toBe(true);
    const stored = JSON.stringify(rows, (_key, value: unknown) =>
      Buffer.isBuffer(value) ? value.toString('base64url') : value,
    );
    expect(stored).not.toContain(issued.token);
    const found = await resets.find(issued.hash);
    expect(found).toMatchObject({ userId, email: 'hash@oran.example', usedAt: null, usable: true });
    expect(resetLinkState(found, NOW)).toBe('usable');
  });

  it('finds the account of an email whatever its case, and says whether it is usable', async () => {
    const userId = await user('Case@Oran.example');
    expect(await resets.findByEmail('  case@ORAN.example ')).toEqual({
      userId,
      merchantId,
      email: 'Case@Oran.example',
      usable: true,
    });
    expect(await resets.findByEmail('nobody@oran.example')).toBeNull();
  });

  it('sets the password once: the second use of a link changes nothing', async () => {
    const userId = await user('once@oran.example');
    const issued = await link(userId);
    const done = await resets.usePasswordReset(issued.hash, 'new-hash-1', at(1));
    expect(done).toEqual({ userId, merchantId, email: 'once@oran.example', otherLinksEnded: 0 });
    expect(await passwordHashOf(userId)).toBe('new-hash-1');
    expect(await resets.usePasswordReset(issued.hash, 'new-hash-2', at(2))).toBeNull();
    expect(await passwordHashOf(userId)).toBe('new-hash-1');
    expect(resetLinkState(await resets.find(issued.hash), at(2))).toBe('used');
  });

  it('refuses an expired link and leaves the password as it was', async () => {
    const userId = await user('late@oran.example');
    const issued = await link(userId, at(-31));
    expect(await resets.usePasswordReset(issued.hash, 'new-hash', NOW)).toBeNull();
    expect(await passwordHashOf(userId)).toBe('old-hash');
    expect(resetLinkState(await resets.find(issued.hash), NOW)).toBe('expired');
    // The same link a minute before its expiry did work: the clock decides, not the row.
    const fresh = await link(userId, at(-29));
    expect(await resets.usePasswordReset(fresh.hash, 'new-hash', NOW)).not.toBeNull();
  });

  it("ends the user's other open links with it, and nobody else's", async () => {
    const userId = await user('many@oran.example');
    const neighbour = await user('neighbour@oran.example');
    const [first, second, third] = [await link(userId), await link(userId), await link(userId)];
    const theirs = await link(neighbour);
    const done = await resets.usePasswordReset(second.hash, 'new-hash', at(1));
    expect(done?.otherLinksEnded).toBe(2);
    for (const other of [first, third]) {
      expect(await resets.usePasswordReset(other.hash, 'again', at(2))).toBeNull();
      expect(resetLinkState(await resets.find(other.hash), at(2))).toBe('used');
    }
    expect(await passwordHashOf(userId)).toBe('new-hash');
    expect(resetLinkState(await resets.find(theirs.hash), at(2))).toBe('usable');
  });

  it('lets one of two simultaneous uses of a link through', async () => {
    const userId = await user('race@oran.example');
    const issued = await link(userId);
    const results = await Promise.all([
      resets.usePasswordReset(issued.hash, 'hash-a', at(1)),
      resets.usePasswordReset(issued.hash, 'hash-b', at(1)),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('refuses the link of a disabled user or of an inactive merchant', async () => {
    const disabled = await user('disabled@oran.example');
    const disabledLink = await link(disabled);
    await sql`update dashboard_users set disabled_at = now() where id = ${disabled}`;
    expect(await resets.findByEmail('disabled@oran.example')).toMatchObject({ usable: false });
    expect(resetLinkState(await resets.find(disabledLink.hash), NOW)).toBe('unknown');
    expect(await resets.usePasswordReset(disabledLink.hash, 'new-hash', at(1))).toBeNull();
    expect(await passwordHashOf(disabled)).toBe('old-hash');

    const [closed] = await sql<{ id: string }[]>`
      insert into merchants (name, active) values ('Closed shop', false) returning id`;
    const closedUser = await user('closed@oran.example', closed!.id);
    const closedLink = await link(closedUser);
    expect(await resets.findByEmail('closed@oran.example')).toMatchObject({ usable: false });
    expect(await resets.usePasswordReset(closedLink.hash, 'new-hash', at(1))).toBeNull();
  });

  it("clears a user's links spent more than a week ago when a new one is made", async () => {
    const userId = await user('old@oran.example');
    await link(userId, at(-8 * 24 * 60));
    const recent = await link(userId, at(-60));
    await link(userId);
    const rows = await sql<{ token_hash: Buffer }[]>`
      select token_hash from dashboard_password_resets where user_id = ${userId}`;
    expect(rows).toHaveLength(2);
    expect(rows.some((row) => row.token_hash.equals(recent.hash))).toBe(true);
  });
});

describe('the reset asks throttle in Redis', () => {
  it('refuses the 4th ask for an email in the hour, whatever its case, and keeps no email', async () => {
    const throttle = passwordResetThrottle(redis);
    const email = `Throttled.${randomUUID().slice(0, 8)}@oran.example`;
    for (let i = 0; i < 3; i++) {
      expect(await throttle.ask(i === 1 ? email.toUpperCase() : email, `203.0.113.${i}`)).toEqual({
        allowed: true,
      });
    }
    const refused = await throttle.ask(email.toLowerCase(), '203.0.113.9');
    expect(refused).toMatchObject({ allowed: false, by: 'email' });
    expect(refused.allowed === false && refused.retryAfterSeconds).toBeGreaterThan(3590);
    const keys = await redis.keys(`${infra.redisPrefix}dashboard:reset-ask:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key.toLowerCase()).not.toContain('oran.example');
  });

  it('refuses the 11th ask from one address, whatever the emails', async () => {
    const throttle = passwordResetThrottle(redis);
    for (let i = 0; i < 10; i++) {
      expect((await throttle.ask(`probe${i}@oran.example`, '198.51.100.7')).allowed).toBe(true);
    }
    expect(await throttle.ask('probe10@oran.example', '198.51.100.7')).toMatchObject({
      allowed: false,
      by: 'address',
    });
    expect((await throttle.ask('probe10@oran.example', '198.51.100.8')).allowed).toBe(true);
  });
});
