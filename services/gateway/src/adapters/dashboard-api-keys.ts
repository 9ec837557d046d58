import type { Mode } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import type { IssuedKey } from '../domain/api-key.ts';

export interface ApiKeyListing {
  id: string;
  mode: Mode;
  displayPrefix: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

interface KeyRow {
  id: string;
  mode: Mode;
  display_prefix: string;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

function listingOf(row: KeyRow): ApiKeyListing {
  return {
    id: row.id,
    mode: row.mode,
    displayPrefix: row.display_prefix,
    label: row.label,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

const COLUMNS = ['id', 'mode', 'display_prefix', 'label', 'created_at', 'revoked_at'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A merchant's API keys as the dashboard sees them: always scoped by merchant and mode,
 * so an id of another merchant's key is simply not found. Revoking fires the accounts
 * trigger (migration 002), so every gateway forgets the key's cached owner at once.
 */
export function dashboardApiKeys(sql: Sql) {
  return {
    async list(merchantId: string, mode: Mode): Promise<ApiKeyListing[]> {
      const rows = await sql<KeyRow[]>`
        select ${sql(COLUMNS)} from api_keys
        where merchant_id = ${merchantId} and mode = ${mode}
        order by revoked_at is not null, created_at desc`;
      return rows.map(listingOf);
    },

    async find(merchantId: string, mode: Mode, id: string): Promise<ApiKeyListing | null> {
      if (!UUID.test(id)) return null;
      const rows = await sql<KeyRow[]>`
        select ${sql(COLUMNS)} from api_keys
        where id = ${id} and merchant_id = ${merchantId} and mode = ${mode}`;
      return rows[0] ? listingOf(rows[0]) : null;
    },

    async insert(merchantId: string, issued: IssuedKey, label: string | null) {
      const [row] = await sql<KeyRow[]>`
        insert into api_keys (merchant_id, mode, key_hash, display_prefix, label)
        values (${merchantId}, ${issued.mode}, ${issued.hash}, ${issued.displayPrefix}, ${label})
        returning ${sql(COLUMNS)}`;
      return listingOf(row!);
    },

    /** Revokes an active key of this merchant and mode; null when there is none. */
    async revoke(merchantId: string, mode: Mode, id: string): Promise<ApiKeyListing | null> {
      if (!UUID.test(id)) return null;
      const rows = await sql<KeyRow[]>`
        update api_keys set revoked_at = now()
        where id = ${id} and merchant_id = ${merchantId} and mode = ${mode}
          and revoked_at is null
        returning ${sql(COLUMNS)}`;
      return rows[0] ? listingOf(rows[0]) : null;
    },
  };
}

export type DashboardApiKeys = ReturnType<typeof dashboardApiKeys>;
