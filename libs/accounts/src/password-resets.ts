import type { Sql } from '@dzpay/platform';
import { accountByEmail } from './dashboard-users.ts';

// Password reset links of dashboard users (gateway migration 012), and the one place a
// user's password is changed by such a link. Tokens reach this table only as their
// SHA-256 (32 bytes): the token itself is in the email alone.

/** Whoever an email asking for a reset belongs to. */
export interface ResetCandidate {
  userId: string;
  merchantId: string;
  email: string;
  /** Enabled, with an active merchant: the only accounts a link is mailed to. */
  usable: boolean;
}

/** A stored link as its page sees it (found by its token's hash). */
export interface StoredReset {
  userId: string;
  email: string;
  expiresAt: Date;
  usedAt: Date | null;
  /** The user is still enabled and the merchant active. */
  usable: boolean;
}

/** Whose password a link just set. */
export interface ResetDone {
  userId: string;
  merchantId: string;
  email: string;
  /** Other open links of the user that were ended with it. */
  otherLinksEnded: number;
}

/** How long a used or expired link is kept before a new link of its user clears it. */
const KEEP_SPENT_DAYS = 7;

/** The password reset links: made for a usable account, used once, before their expiry. */
export function passwordResets(sql: Sql) {
  return {
    /** The account behind an email, whatever its case; null when there is none. */
    async findByEmail(email: string): Promise<ResetCandidate | null> {
      const account = await accountByEmail(sql, email);
      return account
        ? {
            userId: account.id,
            merchantId: account.merchantId,
            email: account.email,
            usable: account.usable,
          }
        : null;
    },

    /**
     * Stores a new link's hash. The user's links spent more than a week ago go at the
     * same time, so the table holds what is open and recent, never a history.
     */
    async create(link: {
      userId: string;
      tokenHash: Buffer;
      createdAt: Date;
      expiresAt: Date;
    }): Promise<void> {
      const keepSince = new Date(link.createdAt.getTime() - KEEP_SPENT_DAYS * 86_400_000);
      await sql.begin(async (tx) => {
        await tx`
          delete from dashboard_password_resets
          where user_id = ${link.userId}
            and coalesce(used_at, expires_at) < ${keepSince}`;
        await tx`
          insert into dashboard_password_resets (user_id, token_hash, created_at, expires_at)
          values (${link.userId}, ${link.tokenHash}, ${link.createdAt}, ${link.expiresAt})`;
      });
    },

    async find(tokenHash: Buffer): Promise<StoredReset | null> {
      const rows = await sql<
        {
          user_id: string;
          email: string;
          expires_at: Date;
          used_at: Date | null;
          usable: boolean;
        }[]
      >`
        select r.user_id, u.email, r.expires_at, r.used_at,
               (u.disabled_at is null and m.active) as usable
        from dashboard_password_resets r
        join dashboard_users u on u.id = r.user_id
        join merchants m on m.id = u.merchant_id
        where r.token_hash = ${tokenHash}`;
      const row = rows[0];
      return row
        ? {
            userId: row.user_id,
            email: row.email,
            expiresAt: row.expires_at,
            usedAt: row.used_at,
            usable: row.usable,
          }
        : null;
    },

    /**
     * Uses a link once: in one transaction, marks it used (only if unused, unexpired at
     * `now`, and its user still usable), sets the user's password hash, and ends every
     * other open link of the user. Null when the link could not be used: nothing changed.
     * Two concurrent uses of one link: the row lock lets one through, the other finds
     * it used.
     */
    async usePasswordReset(
      tokenHash: Buffer,
      passwordHash: string,
      now: Date,
    ): Promise<ResetDone | null> {
      return sql.begin(async (tx) => {
        const [used] = await tx<{ user_id: string }[]>`
          update dashboard_password_resets r set used_at = ${now}
          from dashboard_users u join merchants m on m.id = u.merchant_id
          where r.token_hash = ${tokenHash} and r.used_at is null and r.expires_at > ${now}
            and u.id = r.user_id and u.disabled_at is null and m.active
          returning r.user_id`;
        if (!used) return null;
        const [user] = await tx<{ id: string; merchant_id: string; email: string }[]>`
          update dashboard_users set password_hash = ${passwordHash}
          where id = ${used.user_id}
          returning id, merchant_id, email`;
        const others = await tx`
          update dashboard_password_resets set used_at = ${now}
          where user_id = ${used.user_id} and used_at is null`;
        return {
          userId: user!.id,
          merchantId: user!.merchant_id,
          email: user!.email,
          otherLinksEnded: others.count,
        };
      });
    },
  };
}

export type PasswordResets = ReturnType<typeof passwordResets>;
