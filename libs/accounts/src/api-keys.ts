import type { Mode } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import { toMerchant, type Merchant, type MerchantRow } from './merchants.ts';

export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  displayPrefix: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
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
  created_at: Date;
  revoked_at: Date | null;
}

const KEY_COLUMNS = [
  'id',
  'merchant_id',
  'mode',
  'display_prefix',
  'label',
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
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

/** The api_keys table: every write and read of merchants' API keys. */
export function apiKeysTable(sql: Sql) {
  return {
    async insertKey(key: {
      merchantId: string;
      mode: Mode;
      hash: Buffer;
      displayPrefix: string;
      label: string | null;
    }): Promise<ApiKeyRecord> {
      const [row] = await sql<KeyRow[]>`
        insert into api_keys (merchant_id, mode, key_hash, display_prefix, label)
        values (${key.merchantId}, ${key.mode}, ${key.hash}, ${key.displayPrefix}, ${key.label})
        returning ${sql(KEY_COLUMNS)}`;
      return toKey(row!);
    },

    async listKeys(merchantId: string): Promise<ApiKeyRecord[]> {
      const rows = await sql<KeyRow[]>`
        select ${sql(KEY_COLUMNS)} from api_keys
        where merchant_id = ${merchantId} order by created_at`;
      return rows.map(toKey);
    },

    /** A merchant's keys of one mode as the dashboard lists them: active first, newest first. */
    async listKeysOf(merchantId: string, mode: Mode): Promise<ApiKeyRecord[]> {
      const rows = await sql<KeyRow[]>`
        select ${sql(KEY_COLUMNS)} from api_keys
        where merchant_id = ${merchantId} and mode = ${mode}
        order by revoked_at is not null, created_at desc`;
      return rows.map(toKey);
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
