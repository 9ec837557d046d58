import type { Sql } from '@dzpay/platform';
import { revokeKeysOutliving } from './api-keys.ts';

/**
 * What a dashboard user may do for their merchant (docs/team.md has the whole matrix):
 * owner everything; admin everything but the owners; developer API keys and webhooks,
 * reading payments; accountant reading and exporting only.
 */
export const DashboardRoles = ['owner', 'admin', 'developer', 'accountant'] as const;
export type DashboardRole = (typeof DashboardRoles)[number];

export function isDashboardRole(value: unknown): value is DashboardRole {
  return typeof value === 'string' && (DashboardRoles as readonly string[]).includes(value);
}

export interface DashboardUser {
  id: string;
  merchantId: string;
  email: string;
  role: DashboardRole;
  createdAt: Date;
  disabledAt: Date | null;
}

/** A signed-in user as every dashboard request sees them (checked each time). */
export interface ActiveUser {
  id: string;
  email: string;
  merchantId: string;
  merchantName: string;
  /** Read from Postgres on every request: a changed role applies to the next click. */
  role: DashboardRole;
}

/** An invitation not used, revoked or expired yet. */
export interface PendingInvite {
  id: string;
  email: string;
  role: DashboardRole;
  createdAt: Date;
  expiresAt: Date;
}

/** Why a role change or a disabling was not made (besides the caller's check's refusals). */
export type TeamChangeProblem = 'not-found' | 'last-owner';

/** A team member as a change's check sees them: read under the team's lock. */
interface TeamMember {
  id: string;
  role: DashboardRole;
  enabled: boolean;
}

/**
 * Who may change whom (the dashboard's pages/team-rules.ts), asked inside the transaction with
 * the acting user (null when not in this team) and the target as they are now: a refusal,
 * or null to go on.
 */
type TeamCheck<R extends string> = (actor: TeamMember | null, target: TeamMember) => R | null;

export interface LoginCandidate {
  id: string;
  merchantId: string;
  email: string;
  passwordHash: string;
  /** Disabled, or the merchant is: the password is still checked, then refused. */
  usable: boolean;
}

export interface InviteView {
  email: string;
  merchantName: string;
  /** Accepted already, or past its validity. */
  usable: boolean;
}

type Created = { user: DashboardUser } | { problem: 'email-taken' | 'no-merchant' };

const USER_COLUMNS = ['id', 'merchant_id', 'email', 'role', 'created_at', 'disabled_at'] as const;

interface UserRow {
  id: string;
  merchant_id: string;
  email: string;
  role: DashboardRole;
  created_at: Date;
  disabled_at: Date | null;
}

function userOf(row: UserRow): DashboardUser {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    role: row.role,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/** The dashboard's users and invitations, in the accounts schema (migration 008). */
/**
 * The account an email names, whatever its case (spaces around it ignored), and whether
 * it is usable: enabled, with an active merchant. Sign-in and password reset both start
 * here.
 */
export async function accountByEmail(sql: Sql, email: string): Promise<LoginCandidate | null> {
  const rows = await sql<
    { id: string; merchant_id: string; email: string; password_hash: string; usable: boolean }[]
  >`
    select u.id, u.merchant_id, u.email, u.password_hash,
           (u.disabled_at is null and m.active) as usable
    from dashboard_users u join merchants m on m.id = u.merchant_id
    where lower(u.email) = lower(${email.trim()})`;
  const row = rows[0];
  return row
    ? {
        id: row.id,
        merchantId: row.merchant_id,
        email: row.email,
        passwordHash: row.password_hash,
        usable: row.usable,
      }
    : null;
}

export function dashboardUsers(sql: Sql) {
  async function insertUser(
    tx: Sql,
    merchantId: string,
    email: string,
    passwordHash: string,
    role: DashboardRole,
  ): Promise<Created> {
    try {
      const [row] = await tx<UserRow[]>`
        insert into dashboard_users (merchant_id, email, password_hash, role)
        values (${merchantId}, ${email.trim()}, ${passwordHash}, ${role})
        returning ${tx(USER_COLUMNS)}`;
      return { user: userOf(row!) };
    } catch (error) {
      if (codeOf(error) === UNIQUE_VIOLATION) return { problem: 'email-taken' };
      if (codeOf(error) === FOREIGN_KEY_VIOLATION) return { problem: 'no-merchant' };
      throw error;
    }
  }

  return {
    /** A user made by an operator (the admin CLI): a merchant's first user is its owner. */
    create: (
      merchantId: string,
      email: string,
      passwordHash: string,
      role: DashboardRole = 'owner',
    ) => insertUser(sql, merchantId, email, passwordHash, role),

    findForLogin: (email: string): Promise<LoginCandidate | null> => accountByEmail(sql, email),

    /** The user behind a session, if still enabled and still with this active merchant. */
    async findActive(userId: string, merchantId: string): Promise<ActiveUser | null> {
      const rows = await sql<
        { id: string; email: string; merchant_id: string; name: string; role: DashboardRole }[]
      >`
        select u.id, u.email, u.merchant_id, m.name, u.role
        from dashboard_users u join merchants m on m.id = u.merchant_id
        where u.id = ${userId} and u.merchant_id = ${merchantId}
          and u.disabled_at is null and m.active`;
      const row = rows[0];
      return row
        ? {
            id: row.id,
            email: row.email,
            merchantId: row.merchant_id,
            merchantName: row.name,
            role: row.role,
          }
        : null;
    },

    async listOfMerchant(merchantId: string): Promise<DashboardUser[]> {
      const rows = await sql<UserRow[]>`
        select ${sql(USER_COLUMNS)} from dashboard_users
        where merchant_id = ${merchantId} order by created_at, email`;
      return rows.map(userOf);
    },

    /**
     * Disables a user by email (an operator's act, without the team's rules), revoking
     * the API keys they issued; answers the user and how many keys, or null when there
     * is no such user.
     */
    async disable(email: string): Promise<{ user: DashboardUser; keysRevoked: number } | null> {
      return sql.begin(async (tx) => {
        const rows = await tx<UserRow[]>`
          update dashboard_users set disabled_at = coalesce(disabled_at, now())
          where lower(email) = lower(${email.trim()})
          returning ${tx(USER_COLUMNS)}`;
        const user = rows[0] ? userOf(rows[0]) : null;
        if (!user) return null;
        const keysRevoked = await revokeKeysOutliving(
          tx as unknown as Sql,
          user.merchantId,
          user.id,
          null,
        );
        return { user, keysRevoked };
      });
    },

    /**
     * Whether the email is one of this merchant's users (disabled ones included). Only
     * the merchant's own team: whether it has an account at another merchant is not
     * theirs to know, so an invitation for it is made as any other (its acceptance is
     * then refused, the email having an account).
     */
    async inTeam(merchantId: string, email: string): Promise<boolean> {
      const rows = await sql`
        select 1 from dashboard_users
        where merchant_id = ${merchantId} and lower(email) = lower(${email.trim()})`;
      return rows.length > 0;
    },

    /** One of the merchant's users by id (another merchant's is as unknown as none). */
    async findUserOf(merchantId: string, userId: string): Promise<DashboardUser | null> {
      if (!UUID.test(userId)) return null;
      const rows = await sql<UserRow[]>`
        select ${sql(USER_COLUMNS)} from dashboard_users
        where id = ${userId} and merchant_id = ${merchantId}`;
      return rows[0] ? userOf(rows[0]) : null;
    },

    /**
     * Gives a user another role, if `check` (the dashboard's team rules) allows it against
     * the team as it is now: the actor and the target are read under the team's lock, so a
     * change made since the page read them (the target became an owner, the actor was
     * demoted or disabled) is judged on what is true, not on what was. The merchant keeps
     * at least one enabled owner: two owners demoting each other at once cannot both
     * succeed. Lowered below what their invitations need, the user's pending invitations
     * are revoked in the same transaction.
     */
    async setRole<R extends string>(
      merchantId: string,
      actorId: string,
      userId: string,
      role: DashboardRole,
      check: TeamCheck<R>,
    ): Promise<
      | {
          user: DashboardUser;
          previous: DashboardRole;
          invitesRevoked: number;
          keysRevoked: number;
        }
      | { problem: TeamChangeProblem | R }
    > {
      if (!UUID.test(userId)) return { problem: 'not-found' };
      return sql.begin(async (tx) => {
        const locked = await lockedChange(tx as unknown as Sql, merchantId, actorId, userId, check);
        if ('problem' in locked) return locked;
        const { target } = locked;
        if (target.role === 'owner' && role !== 'owner' && !locked.otherOwner) {
          return { problem: 'last-owner' as const };
        }
        const [row] = await tx<UserRow[]>`
          update dashboard_users set role = ${role}
          where id = ${userId} and merchant_id = ${merchantId}
          returning ${tx(USER_COLUMNS)}`;
        const invitesRevoked = await revokeInvitesOf(
          tx as unknown as Sql,
          merchantId,
          userId,
          role,
        );
        const keysRevoked = await revokeKeysOutliving(
          tx as unknown as Sql,
          merchantId,
          userId,
          role,
        );
        return { user: userOf(row!), previous: target.role, invitesRevoked, keysRevoked };
      });
    },

    /**
     * Disables or enables one of the merchant's users, if `check` allows it under the
     * team's lock (as setRole). Never the last enabled owner. A disabled user's pending
     * invitations are revoked with it. The caller ends their sessions (they live in
     * Redis); every request also reads disabled_at, so none gets through meanwhile.
     */
    async setDisabled<R extends string>(
      merchantId: string,
      actorId: string,
      userId: string,
      disabled: boolean,
      check: TeamCheck<R>,
    ): Promise<
      | { user: DashboardUser; wasDisabled: boolean; invitesRevoked: number; keysRevoked: number }
      | { problem: TeamChangeProblem | R }
    > {
      if (!UUID.test(userId)) return { problem: 'not-found' };
      return sql.begin(async (tx) => {
        const locked = await lockedChange(tx as unknown as Sql, merchantId, actorId, userId, check);
        if ('problem' in locked) return locked;
        const { target } = locked;
        if (disabled && target.role === 'owner' && !locked.otherOwner) {
          return { problem: 'last-owner' as const };
        }
        const [row] = await tx<UserRow[]>`
          update dashboard_users
             set disabled_at = ${disabled ? sql`coalesce(disabled_at, now())` : null}
           where id = ${userId} and merchant_id = ${merchantId}
          returning ${tx(USER_COLUMNS)}`;
        const revokes = (revoke: typeof revokeInvitesOf) =>
          disabled ? revoke(tx as unknown as Sql, merchantId, userId, null) : Promise.resolve(0);
        const invitesRevoked = await revokes(revokeInvitesOf);
        const keysRevoked = await revokes(revokeKeysOutliving);
        return {
          user: userOf(row!),
          wasDisabled: target.disabled_at !== null,
          invitesRevoked,
          keysRevoked,
        };
      });
    },

    /**
     * A new invitation, replacing any still pending for the same email at this merchant
     * (an invitation sent again): one live link per invitee.
     */
    async createInvite(invite: {
      merchantId: string;
      email: string;
      role: DashboardRole;
      tokenHash: Buffer;
      invitedBy: string;
      expiresAt: Date;
    }): Promise<{ id: string }> {
      const email = invite.email.trim();
      return sql.begin(async (tx) => {
        await tx`
          update dashboard_invites set revoked_at = now()
          where merchant_id = ${invite.merchantId} and lower(email) = lower(${email})
            and accepted_at is null and revoked_at is null`;
        const [row] = await tx<{ id: string }[]>`
          insert into dashboard_invites
            (merchant_id, email, role, token_hash, invited_by, expires_at)
          values (${invite.merchantId}, ${email}, ${invite.role}, ${invite.tokenHash},
                  ${invite.invitedBy}, ${invite.expiresAt})
          returning id`;
        return { id: row!.id };
      });
    },

    /** The merchant's invitations still waiting for their invitee, newest first. */
    async pendingInvites(merchantId: string): Promise<PendingInvite[]> {
      const rows = await sql<
        { id: string; email: string; role: DashboardRole; created_at: Date; expires_at: Date }[]
      >`
        select id, email, role, created_at, expires_at from dashboard_invites
        where merchant_id = ${merchantId} and accepted_at is null and revoked_at is null
          and expires_at > now()
        order by created_at desc`;
      return rows.map((row) => ({
        id: row.id,
        email: row.email,
        role: row.role,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }));
    },

    /** Withdraws a pending invitation: its link opens nothing from now on. */
    async revokeInvite(
      merchantId: string,
      inviteId: string,
    ): Promise<{ email: string; role: DashboardRole } | null> {
      if (!UUID.test(inviteId)) return null;
      const rows = await sql<{ email: string; role: DashboardRole }[]>`
        update dashboard_invites set revoked_at = now()
        where id = ${inviteId} and merchant_id = ${merchantId}
          and accepted_at is null and revoked_at is null
        returning email, role`;
      return rows[0] ?? null;
    },

    async findInvite(tokenHash: Buffer): Promise<InviteView | null> {
      const rows = await sql<{ email: string; name: string; usable: boolean }[]>`
        select i.email, m.name,
               (i.accepted_at is null and i.revoked_at is null and i.expires_at > now()
                and m.active and ${inviterStillMay(sql)}) as usable
        from dashboard_invites i join merchants m on m.id = i.merchant_id
        where i.token_hash = ${tokenHash}`;
      const row = rows[0];
      return row ? { email: row.email, merchantName: row.name, usable: row.usable } : null;
    },

    /**
     * Uses an invitation once: marks it accepted and creates its user in one
     * transaction, so a link cannot make two accounts and a refused user leaves the
     * link usable. Its inviter must still be able to send it (enabled, an owner or an
     * admin, an owner for an owner's invitation): one who was disabled or demoted since
     * cannot go on adding people through links sent before.
     */
    async acceptInvite(
      tokenHash: Buffer,
      passwordHash: string,
    ): Promise<Created | { problem: 'invalid' }> {
      return sql
        .begin(async (tx) => {
          // The inviter's row is locked first, in the order setRole and setDisabled take
          // theirs (the team, then its invitations): one being disabled or demoted right
          // now has either revoked this invitation when the update below runs, or waits
          // for this acceptance to end.
          const [found] = await tx<{ invited_by: string | null }[]>`
            select invited_by from dashboard_invites where token_hash = ${tokenHash}`;
          if (!found?.invited_by) return { problem: 'invalid' as const };
          await tx`select 1 from dashboard_users where id = ${found.invited_by} for share`;
          const [invite] = await tx<{ merchant_id: string; email: string; role: DashboardRole }[]>`
          update dashboard_invites i set accepted_at = now()
          where i.token_hash = ${tokenHash} and i.accepted_at is null and i.revoked_at is null
            and i.expires_at > now()
            and i.merchant_id in (select id from merchants where active)
            and ${inviterStillMay(tx as unknown as Sql)}
          returning i.merchant_id, i.email, i.role`;
          if (!invite) return { problem: 'invalid' as const };
          const created = await insertUser(
            tx as unknown as Sql,
            invite.merchant_id,
            invite.email,
            passwordHash,
            invite.role,
          );
          // Nothing accepted when the user could not be made (the email got an account).
          if ('problem' in created) throw new InviteRefused(created);
          return created;
        })
        .catch((error: unknown) => {
          if (error instanceof InviteRefused) return error.created;
          throw error;
        });
    },
  };
}

/** The merchant's users, locked until the transaction ends (for the team's rules). */
async function lockTeam(tx: Sql, merchantId: string) {
  return tx<{ id: string; role: DashboardRole; disabled_at: Date | null }[]>`
    select id, role, disabled_at from dashboard_users
    where merchant_id = ${merchantId} order by id for update`;
}

type LockedUser = Awaited<ReturnType<typeof lockTeam>>[number];

function memberOf(team: readonly LockedUser[], userId: string): TeamMember | null {
  const user = team.find((row) => row.id === userId);
  return user ? { id: user.id, role: user.role, enabled: user.disabled_at === null } : null;
}

/**
 * The start of every team change: the team locked, the target found, and the caller's
 * rules judged on the actor and target as they are now. Whether an enabled owner other
 * than the target remains is read from the same rows, for the last-owner rule.
 */
async function lockedChange<R extends string>(
  tx: Sql,
  merchantId: string,
  actorId: string,
  userId: string,
  check: TeamCheck<R>,
): Promise<{ target: LockedUser; otherOwner: boolean } | { problem: 'not-found' | R }> {
  const team = await lockTeam(tx, merchantId);
  const target = team.find((user) => user.id === userId);
  if (!target) return { problem: 'not-found' };
  const refusal = check(memberOf(team, actorId), memberOf(team, userId)!);
  if (refusal !== null) return { problem: refusal };
  return { target, otherOwner: otherOwner(team, userId) };
}

/** Whether an enabled owner other than this user remains. */
function otherOwner(team: readonly LockedUser[], userId: string): boolean {
  return team.some((user) => user.id !== userId && user.role === 'owner' && !user.disabled_at);
}

/**
 * Whether an invitation's (alias `i`) inviter may still send it: enabled, an owner, or an
 * admin for anything but an owner's invitation (the dashboard's pages/team-rules.ts
 * grantableRoles; Postgres has to know it here, inside the accepting update). One whose
 * inviter left (invited_by null) is nobody's any more.
 */
function inviterStillMay(sql: Sql) {
  return sql`exists (
    select 1 from dashboard_users inviter
    where inviter.id = i.invited_by and inviter.merchant_id = i.merchant_id
      and inviter.disabled_at is null
      and (inviter.role = 'owner' or (inviter.role = 'admin' and i.role <> 'owner')))`;
}

/**
 * Revokes the user's pending invitations they could no longer send: all of them once
 * disabled (`role` null) or lowered below admin, the owners' ones once an admin.
 */
async function revokeInvitesOf(
  tx: Sql,
  merchantId: string,
  userId: string,
  role: DashboardRole | null,
): Promise<number> {
  if (role === 'owner') return 0;
  const rows = await tx`
    update dashboard_invites set revoked_at = now()
    where merchant_id = ${merchantId} and invited_by = ${userId}
      and accepted_at is null and revoked_at is null
      ${role === 'admin' ? tx`and role = 'owner'` : tx``}
    returning id`;
  return rows.length;
}

class InviteRefused extends Error {
  readonly created: Created;
  constructor(created: Created) {
    super('invite refused');
    this.created = created;
  }
}

export type DashboardUsers = ReturnType<typeof dashboardUsers>;
