import type { Mode } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';

export interface Merchant {
  id: string;
  name: string;
  active: boolean;
  createdAt: Date;
}

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
  merchantId: string;
  merchantActive: boolean;
}

interface MerchantRow {
  id: string;
  name: string;
  active: boolean;
  created_at: Date;
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

const toMerchant = (row: MerchantRow): Merchant => ({
  id: row.id,
  name: row.name,
  active: row.active,
  createdAt: row.created_at,
});

const toKey = (row: KeyRow): ApiKeyRecord => ({
  id: row.id,
  merchantId: row.merchant_id,
  mode: row.mode,
  displayPrefix: row.display_prefix,
  label: row.label,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

/** The accounts schema: merchants and API keys. */
export function accountsRepository(sql: Sql) {
  return {
    async createMerchant(name: string): Promise<Merchant> {
      const [row] = await sql<MerchantRow[]>`
        insert into merchants (name) values (${name}) returning id, name, active, created_at`;
      return toMerchant(row!);
    },

    async listMerchants(): Promise<Merchant[]> {
      const rows = await sql<MerchantRow[]>`
        select id, name, active, created_at from merchants order by created_at`;
      return rows.map(toMerchant);
    },

    async findMerchant(id: string): Promise<Merchant | null> {
      const rows = await sql<MerchantRow[]>`
        select id, name, active, created_at from merchants where id = ${id}`;
      return rows[0] ? toMerchant(rows[0]) : null;
    },

    /** Returns false when there is no such merchant. */
    async setMerchantActive(id: string, active: boolean): Promise<boolean> {
      const rows = await sql`
        update merchants set active = ${active}, updated_at = now() where id = ${id} returning id`;
      return rows.length === 1;
    },

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
        returning id, merchant_id, mode, display_prefix, label, created_at, revoked_at`;
      return toKey(row!);
    },

    async listKeys(merchantId: string): Promise<ApiKeyRecord[]> {
      const rows = await sql<KeyRow[]>`
        select id, merchant_id, mode, display_prefix, label, created_at, revoked_at
        from api_keys where merchant_id = ${merchantId} order by created_at`;
      return rows.map(toKey);
    },

    /** Returns false when there is no such key or it was revoked already. */
    async revokeKey(id: string): Promise<boolean> {
      const rows = await sql`
        update api_keys set revoked_at = now()
        where id = ${id} and revoked_at is null returning id`;
      return rows.length === 1;
    },

    /** The owner of an unrevoked key with this hash, or null. */
    async findKeyOwner(hash: Buffer): Promise<KeyOwner | null> {
      const rows = await sql<
        { id: string; key_hash: Buffer; mode: Mode; merchant_id: string; active: boolean }[]
      >`
        select k.id, k.key_hash, k.mode, k.merchant_id, m.active
        from api_keys k join merchants m on m.id = k.merchant_id
        where k.key_hash = ${hash} and k.revoked_at is null`;
      const row = rows[0];
      if (!row) return null;
      return {
        keyId: row.id,
        keyHash: row.key_hash,
        mode: row.mode,
        merchantId: row.merchant_id,
        merchantActive: row.active,
      };
    },
  };
}

export type AccountsRepository = ReturnType<typeof accountsRepository>;
