import type { Mode } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import type { DashboardRole } from './dashboard-users.ts';
import { toMerchant, type Merchant, type MerchantRow } from './merchants.ts';

/**
 * The modes of API key a dashboard role may issue and keep (docs/team.md): a key acts
 * for the merchant across the whole API of its mode (refunds, the balance, the audit log
 * included), so a live key is for owners and admins; a developer works with test keys;
 * an accountant holds none.
 */
export function keyModesOf(role: DashboardRole): readonly Mode[] {
  if (role === 'owner' || role === 'admin') return ['test', 'live'];
  return role === 'developer' ? ['test'] : [];
}

export function mayHoldKey(role: DashboardRole, mode: Mode): boolean {
  return keyModesOf(role).includes(mode);
}

export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  displayPrefix: string;
  label: string | null;
  /** The dashboard user who issued it; null: an operator (the admin CLI). */
  issuedBy: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** A key listed for the dashboard, with its issuer's email (null: an operator, or gone). */
export interface ListedApiKey extends ApiKeyRecord {
  issuerEmail: string | null;
}

/** What authentication needs to know about a presented key. */
export interface KeyOwner {
  keyId: string;
  keyHash: Buffer;
  mode: Mode;
  merchant: Merchant;
}

interface KeyRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  display_prefix: string;
  label: string | null;
  issued_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const KEY_COLUMNS = [
  'id',
  'merchant_id',
  'mode',
  'display_prefix',
  'label',
  'issued_by',
  'created_at',
  'revoked_at',
] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const toKey = (row: KeyRow): ApiKeyRecord => ({
  id: row.id,
  merchantId: row.merchant_id,
  mode: row.mode,
  displayPrefix: row.display_prefix,
  label: row.label,
  issuedBy: row.issued_by,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

interface NewKey {
  merchantId: string;
  mode: Mode;
  hash: Buffer;
  displayPrefix: string;
  label: string | null;
}

/**
 * Revokes the keys a user issued that `role` may no longer hold (every one when the user
 * is disabled: `role` null), inside the caller's transaction; how many.
 */
export async function revokeKeysOutliving(
  tx: Sql,
  merchantId: string,
  userId: string,
  role: DashboardRole | null,
): Promise<number> {
  const kept = role === null ? [] : keyModesOf(role);
  const rows = await tx`
    update api_keys set revoked_at = now()
    where merchant_id = ${merchantId} and issued_by = ${userId} and revoked_at is null
      ${kept.length ? tx`and mode <> all(${kept as Mode[]})` : tx``}
    returning id`;
  return rows.length;
}

/** The api_keys table: every write and read of merchants' API keys. */
export function apiKeysTable(sql: Sql) {
  return {
    /** A key issued by an operator (the admin CLI): no issuer to outlive. */
    async insertKey(key: NewKey): Promise<ApiKeyRecord> {
      const [row] = await sql<KeyRow[]>`
        insert into api_keys (merchant_id, mode, key_hash, display_prefix, label)
        values (${key.merchantId}, ${key.mode}, ${key.hash}, ${key.displayPrefix}, ${key.label})
        returning ${sql(KEY_COLUMNS)}`;
      return toKey(row!);
    },

    /**
     * A key issued by a dashboard user, if they may hold one of its mode as they are now:
     * enabled, of this merchant, in a role keyModesOf allows. Their row is read under a
     * share lock, so a demotion or disabling running at the same moment either comes
     * after this insert (and revokes the key) or before it (and refuses it). Null when
     * refused.
     */
    async insertKeyIssuedBy(key: NewKey, issuerId: string): Promise<ApiKeyRecord | null> {
      return sql.begin(async (tx) => {
        const [issuer] = await tx<{ role: DashboardRole }[]>`
          select role from dashboard_users
          where id = ${issuerId} and merchant_id = ${key.merchantId} and disabled_at is null
          for share`;
        if (!issuer || !mayHoldKey(issuer.role, key.mode)) return null;
        const [row] = await tx<KeyRow[]>`
          insert into api_keys (merchant_id, mode, key_hash, display_prefix, label, issued_by)
          values (${key.merchantId}, ${key.mode}, ${key.hash}, ${key.displayPrefix},
                  ${key.label}, ${issuerId})
          returning ${tx(KEY_COLUMNS)}`;
        return toKey(row!);
      });
    },

    async listKeys(merchantId: string): Promise<ApiKeyRecord[]> {
      const rows = await sql<KeyRow[]>`
        select ${sql(KEY_COLUMNS)} from api_keys
        where merchant_id = ${merchantId} order by created_at`;
      return rows.map(toKey);
    },

    /** A merchant's keys of one mode as the dashboard lists them: active first, newest first. */
    async listKeysOf(merchantId: string, mode: Mode): Promise<ListedApiKey[]> {
      const rows = await sql<(KeyRow & { issuer_email: string | null })[]>`
        select ${sql(KEY_COLUMNS.map((column) => `k.${column}`))}, u.email as issuer_email
        from api_keys k left join dashboard_users u on u.id = k.issued_by
        where k.merchant_id = ${merchantId} and k.mode = ${mode}
        order by k.revoked_at is not null, k.created_at desc`;
      return rows.map((row) => ({ ...toKey(row), issuerEmail: row.issuer_email }));
    },

    /**
     * A key of this merchant and mode, so an id of another merchant's key is simply not
     * found; null when there is none.
     */
    async findKeyOf(merchantId: string, mode: Mode, id: string): Promise<ApiKeyRecord | null> {
      if (!UUID.test(id)) return null;
      const rows = await sql<KeyRow[]>`
        select ${sql(KEY_COLUMNS)} from api_keys
        where id = ${id} and merchant_id = ${merchantId} and mode = ${mode}`;
      return rows[0] ? toKey(rows[0]) : null;
    },

    /**
     * Revokes an active key of this merchant and mode; null when there is none. Revoking
     * fires the accounts trigger (migration 002), so every gateway forgets the key's
     * cached owner at once.
     */
    async revokeKeyOf(merchantId: string, mode: Mode, id: string): Promise<ApiKeyRecord | null> {
      if (!UUID.test(id)) return null;
      const rows = await sql<KeyRow[]>`
        update api_keys set revoked_at = now()
        where id = ${id} and merchant_id = ${merchantId} and mode = ${mode}
          and revoked_at is null
        returning ${sql(KEY_COLUMNS)}`;
      return rows[0] ? toKey(rows[0]) : null;
    },

    /** Notes a use of the key (never moving its last use back in time). */
    async recordKeyUse(keyId: string, at: Date): Promise<void> {
      await sql`
        insert into api_key_uses (key_id, last_used_at) values (${keyId}, ${at})
        on conflict (key_id) do update
          set last_used_at = greatest(api_key_uses.last_used_at, excluded.last_used_at)`;
    },

    /** When each of a merchant's keys was last used (keys never used are absent). */
    async lastUsesOf(merchantId: string): Promise<Map<string, Date>> {
      const rows = await sql<{ key_id: string; last_used_at: Date }[]>`
        select u.key_id, u.last_used_at from api_key_uses u
        join api_keys k on k.id = u.key_id where k.merchant_id = ${merchantId}`;
      return new Map(rows.map((row) => [row.key_id, row.last_used_at]));
    },

    /** Returns false when there is no such key or it was revoked already. */
    /** Revokes an active key by id alone (the operator's CLI); the key revoked, or null. */
    async revokeKey(id: string): Promise<ApiKeyRecord | null> {
      const rows = await sql<KeyRow[]>`
        update api_keys set revoked_at = now()
        where id = ${id} and revoked_at is null returning ${sql(KEY_COLUMNS)}`;
      return rows[0] ? toKey(rows[0]) : null;
    },

    /** The owner of an unrevoked key with this hash, or null. */
    async findKeyOwner(hash: Buffer): Promise<KeyOwner | null> {
      const rows = await sql<(MerchantRow & { key_id: string; key_hash: Buffer; mode: Mode })[]>`
        select k.id as key_id, k.key_hash, k.mode,
               m.id, m.name, m.active, m.fee_dzd, m.min_amount, m.max_amount, m.wallet_id,
               m.receipt_emails_per_hour, m.created_at
        from api_keys k join merchants m on m.id = k.merchant_id
        where k.key_hash = ${hash} and k.revoked_at is null`;
      const row = rows[0];
      if (!row) return null;
      return {
        keyId: row.key_id,
        keyHash: row.key_hash,
        mode: row.mode,
        merchant: toMerchant(row),
      };
    },
  };
}

export type ApiKeysTable = ReturnType<typeof apiKeysTable>;
