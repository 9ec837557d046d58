import type { MerchantScope, QrConfiguration } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import type { QrCodesCursor } from '../domain/qr-codes-cursor.ts';
import type { SingleUseClearing } from '../domain/single-use.ts';

export interface QrCodeRecord extends MerchantScope {
  token: string;
  createdAt: Date;
}

export interface NewConfiguration {
  amounts: number[];
  expiresAt: string | null;
  singleUse: boolean;
}

interface ConfigRow {
  merchant_id: string;
  mode: 'test' | 'live';
  token: string;
  amounts: number[] | null;
  expires_at: Date | null;
  single_use: boolean | null;
  version: number | null;
  updated_at: Date | null;
}

/** The qr schema: QR codes and their one current configuration. */
export function qrRepository(sql: Sql) {
  return {
    /** Inserts a code; false when the token is already taken (by anyone). */
    async createCode(scope: MerchantScope, token: string): Promise<QrCodeRecord | null> {
      const rows = await sql<{ created_at: Date }[]>`
        insert into codes (token, merchant_id, mode)
        values (${token}, ${scope.merchantId}, ${scope.mode})
        on conflict (token) do nothing
        returning created_at`;
      const row = rows[0];
      return row ? { ...scope, token, createdAt: row.created_at } : null;
    },

    /**
     * Replaces the configuration of the scope's code whole, in one statement: of many
     * concurrent calls exactly one is the last, and its row is what stays. Returns the
     * new version (never one the token had before), or null when the scope has no code
     * with this token.
     */
    async replaceConfig(
      scope: MerchantScope,
      token: string,
      config: NewConfiguration,
    ): Promise<number | null> {
      const rows = await sql<{ version: number }[]>`
        with code as (
          update codes set config_version = config_version + 1
          where token = ${token} and merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          returning token, config_version
        )
        insert into configs (token, amounts, expires_at, single_use, version)
        select token, ${config.amounts}::bigint[], ${config.expiresAt}, ${config.singleUse},
               config_version
        from code
        on conflict (token) do update
          set amounts = excluded.amounts,
              expires_at = excluded.expires_at,
              single_use = excluded.single_use,
              version = excluded.version,
              updated_at = now()
        returning version`;
      return rows[0]?.version ?? null;
    },

    /**
     * Removes the configuration of the scope's code. Returns null when there is no such
     * code, else whether a configuration was there to remove.
     */
    async removeConfig(scope: MerchantScope, token: string): Promise<boolean | null> {
      const rows = await sql<{ code_found: boolean; removed: boolean }[]>`
        with code as (
          select token from codes
          where token = ${token} and merchant_id = ${scope.merchantId} and mode = ${scope.mode}
        ), removed as (
          delete from configs where token in (select token from code) returning 1
        )
        select exists (select 1 from code) as code_found, exists (select 1 from removed) as removed`;
      const row = rows[0];
      return row?.code_found ? row.removed : null;
    },

    /**
     * Clears the scope's single-use configuration of the token when it is the version the
     * payment paid, and records the event, in one transaction: an event seen before
     * changes nothing, and a configuration set since (a newer version) stays.
     */
    async clearSingleUse(clearing: SingleUseClearing): Promise<'cleared' | 'kept' | 'duplicate'> {
      return sql.begin(async (tx) => {
        const recorded = await tx`
          insert into processed_events (event_id) values (${clearing.eventId})
          on conflict (event_id) do nothing
          returning event_id`;
        if (recorded.length === 0) return 'duplicate';
        const cleared = await tx`
          delete from configs f
          using codes c
          where f.token = c.token
            and c.token = ${clearing.token}
            and c.merchant_id = ${clearing.merchantId}
            and c.mode = ${clearing.mode}
            and f.single_use
            and f.version = ${clearing.version}
          returning f.token`;
        return cleared.length > 0 ? 'cleared' : 'kept';
      });
    },

    /**
     * The scope's codes with their stored configuration, newest first (`created_at desc,
     * token desc`), after the cursor by keyset: codes created meanwhile never shift the
     * pages after the first. Served by the index of migration 005.
     */
    async listCodes(
      scope: MerchantScope,
      after: QrCodesCursor | null,
      limit: number,
    ): Promise<{ code: QrCodeRecord; config: QrConfiguration | null; cursor: QrCodesCursor }[]> {
      const rows = await sql<(ConfigRow & { created_at: Date; created_micros: string })[]>`
        select c.token, c.merchant_id, c.mode, c.created_at,
               (floor(extract(epoch from date_trunc('second', c.created_at)))::bigint * 1000000
                 + extract(microseconds from c.created_at)::bigint % 1000000)::text as created_micros,
               f.amounts, f.expires_at, f.single_use, f.version, f.updated_at
        from codes c left join configs f on f.token = c.token
        where c.merchant_id = ${scope.merchantId} and c.mode = ${scope.mode}
          ${
            after
              ? sql`and (c.created_at, c.token) < (timestamptz 'epoch' + ${after.createdMicros}::bigint * interval '1 microsecond', ${after.token})`
              : sql``
          }
        order by c.created_at desc, c.token desc
        limit ${limit}`;
      return rows.map((row) => ({
        code: {
          token: row.token,
          merchantId: row.merchant_id,
          mode: row.mode,
          createdAt: row.created_at,
        },
        config: toConfiguration(row),
        cursor: { createdMicros: row.created_micros, token: row.token },
      }));
    },

    /** The code and its stored configuration (expired or not), or null for no code. */
    async findByToken(
      token: string,
    ): Promise<{ code: QrCodeRecord; config: QrConfiguration | null } | null> {
      const rows = await sql<(ConfigRow & { created_at: Date })[]>`
        select c.token, c.merchant_id, c.mode, c.created_at,
               f.amounts, f.expires_at, f.single_use, f.version, f.updated_at
        from codes c left join configs f on f.token = c.token
        where c.token = ${token}`;
      const row = rows[0];
      if (!row) return null;
      const code = {
        token: row.token,
        merchantId: row.merchant_id,
        mode: row.mode,
        createdAt: row.created_at,
      };
      return { code, config: toConfiguration(row) };
    },
  };
}

export type QrRepository = ReturnType<typeof qrRepository>;

function toConfiguration(row: ConfigRow): QrConfiguration | null {
  if (row.amounts === null || row.version === null || row.updated_at === null) return null;
  return {
    amounts: row.amounts,
    expiresAt: row.expires_at?.toISOString() ?? null,
    singleUse: row.single_use ?? false,
    version: row.version,
    updatedAt: row.updated_at.toISOString(),
  };
}
