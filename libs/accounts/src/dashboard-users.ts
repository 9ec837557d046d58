import type { Sql } from '@dzpay/platform';

export interface DashboardUser {
  id: string;
  merchantId: string;
  email: string;
  createdAt: Date;
  disabledAt: Date | null;
}

/** A signed-in user as every dashboard request sees them (checked each time). */
export interface ActiveUser {
  id: string;
  email: string;
  merchantId: string;
  merchantName: string;
}

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

const USER_COLUMNS = ['id', 'merchant_id', 'email', 'created_at', 'disabled_at'] as const;

interface UserRow {
  id: string;
  merchant_id: string;
  email: string;
  created_at: Date;
  disabled_at: Date | null;
}

function userOf(row: UserRow): DashboardUser {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
  };
}

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/** The dashboard's users and invitations, in the accounts schema (migration 008). */
export function dashboardUsers(sql: Sql) {
  async function insertUser(
    tx: Sql,
    merchantId: string,
    email: string,
    passwordHash: string,
  ): Promise<Created> {
    try {
      const [row] = await tx<UserRow[]>`
        insert into dashboard_users (merchant_id, email, password_hash)
        values (${merchantId}, ${email.trim()}, ${passwordHash})
        returning ${tx(USER_COLUMNS)}`;
      return { user: userOf(row!) };
    } catch (error) {
      if (codeOf(error) === UNIQUE_VIOLATION) return { problem: 'email-taken' };
      if (codeOf(error) === FOREIGN_KEY_VIOLATION) return { problem: 'no-merchant' };
      throw error;
    }
  }

  return {
    create: (merchantId: string, email: string, passwordHash: string) =>
      insertUser(sql, merchantId, email, passwordHash),

    async findForLogin(email: string): Promise<LoginCandidate | null> {
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
    },

    /** The user behind a session, if still enabled and still with this active merchant. */
    async findActive(userId: string, merchantId: string): Promise<ActiveUser | null> {
      const rows = await sql<{ id: string; email: string; merchant_id: string; name: string }[]>`
        select u.id, u.email, u.merchant_id, m.name
        from dashboard_users u join merchants m on m.id = u.merchant_id
        where u.id = ${userId} and u.merchant_id = ${merchantId}
          and u.disabled_at is null and m.active`;
      const row = rows[0];
      return row
        ? { id: row.id, email: row.email, merchantId: row.merchant_id, merchantName: row.name }
        : null;
    },

    async listOfMerchant(merchantId: string): Promise<DashboardUser[]> {
      const rows = await sql<UserRow[]>`
        select ${sql(USER_COLUMNS)} from dashboard_users
        where merchant_id = ${merchantId} order by created_at, email`;
      return rows.map(userOf);
    },

    /** Disables a user by email; answers the user, or null when there is none. */
    async disable(email: string): Promise<DashboardUser | null> {
      const rows = await sql<UserRow[]>`
        update dashboard_users set disabled_at = coalesce(disabled_at, now())
        where lower(email) = lower(${email.trim()})
        returning ${sql(USER_COLUMNS)}`;
      return rows[0] ? userOf(rows[0]) : null;
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

    async createInvite(invite: {
      merchantId: string;
      email: string;
      tokenHash: Buffer;
      invitedBy: string;
      expiresAt: Date;
    }): Promise<void> {
      await sql`
        insert into dashboard_invites (merchant_id, email, token_hash, invited_by, expires_at)
        values (${invite.merchantId}, ${invite.email.trim()}, ${invite.tokenHash},
                ${invite.invitedBy}, ${invite.expiresAt})`;
    },

    async findInvite(tokenHash: Buffer): Promise<InviteView | null> {
      const rows = await sql<{ email: string; name: string; usable: boolean }[]>`
        select i.email, m.name,
               (i.accepted_at is null and i.expires_at > now() and m.active) as usable
        from dashboard_invites i join merchants m on m.id = i.merchant_id
        where i.token_hash = ${tokenHash}`;
      const row = rows[0];
      return row ? { email: row.email, merchantName: row.name, usable: row.usable } : null;
    },

    /**
     * Uses an invitation once: marks it accepted and creates its user in one
     * transaction, so a link cannot make two accounts and a refused user leaves the
     * link usable.
     */
    async acceptInvite(
      tokenHash: Buffer,
      passwordHash: string,
    ): Promise<Created | { problem: 'invalid' }> {
      return sql
        .begin(async (tx) => {
          const [invite] = await tx<{ merchant_id: string; email: string }[]>`
          update dashboard_invites set accepted_at = now()
          where token_hash = ${tokenHash} and accepted_at is null and expires_at > now()
            and merchant_id in (select id from merchants where active)
          returning merchant_id, email`;
          if (!invite) return { problem: 'invalid' as const };
          const created = await insertUser(
            tx as unknown as Sql,
            invite.merchant_id,
            invite.email,
            passwordHash,
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

class InviteRefused extends Error {
  readonly created: Created;
  constructor(created: Created) {
    super('invite refused');
    this.created = created;
  }
}

export type DashboardUsers = ReturnType<typeof dashboardUsers>;
