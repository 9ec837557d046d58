import type { Mode } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';

/** A partner endpoint as the partner directory publishes it (secrets sealed). */
export interface PartnerEndpointRow {
  merchantId: string;
  mode: Mode;
  /** Null (with its secret) for a merchant that only set a webhook URL. */
  apiUrl: string | null;
  apiSecretSealed: Buffer | null;
  /** Null or absent: `{apiUrl}/webhooks/platform`. */
  webhookUrl?: string | null;
  /** Null or absent: the default kinds. */
  webhookEvents?: string[] | null;
  signingSecretSealed: Buffer | null;
  previousSigningSecretSealed: Buffer | null;
  previousValidUntil: Date | null;
  /** When the endpoint or its merchant last changed. */
  changedAt: Date;
}

/** A merchant's webhook settings in one mode, as stored (no secret). */
export interface WebhookSettingsRow {
  apiUrl: string | null;
  webhookUrl: string | null;
  webhookEvents: string[] | null;
  hasSigningSecret: boolean;
  signingSecretCreatedAt: Date | null;
  previousValidUntil: Date | null;
  /** When the row last changed, in ms: the partner directory entry is at least this new. */
  version: number;
}

interface WebhookSettingsDbRow {
  api_url: string | null;
  webhook_url: string | null;
  webhook_events: string[] | null;
  has_signing_secret: boolean;
  signing_secret_created_at: Date | null;
  previous_valid_until: Date | null;
  updated_at: Date;
}

const SETTINGS_COLUMNS = `api_url, webhook_url, webhook_events,
  signing_secret_sealed is not null as has_signing_secret, signing_secret_created_at,
  previous_valid_until, updated_at`;

function toSettings(row: WebhookSettingsDbRow): WebhookSettingsRow {
  return {
    apiUrl: row.api_url,
    webhookUrl: row.webhook_url,
    webhookEvents: row.webhook_events,
    hasSigningSecret: row.has_signing_secret,
    signingSecretCreatedAt: row.signing_secret_created_at,
    previousValidUntil: row.previous_valid_until,
    version: row.updated_at.getTime(),
  };
}

/** The partner_endpoints table: partners' servers, webhook settings and signing secrets. */
export function partnerEndpointsTable(sql: Sql) {
  return {
    /** Sets the partner's server for a merchant and mode; false when there is no such merchant. */
    async setPartnerEndpoint(
      merchantId: string,
      mode: Mode,
      apiUrl: string,
      sealedSecret: Buffer,
    ): Promise<boolean> {
      const rows = await sql`
        insert into partner_endpoints (merchant_id, mode, api_url, api_secret_sealed)
        select id, ${mode}, ${apiUrl}, ${sealedSecret} from merchants where id = ${merchantId}
        on conflict (merchant_id, mode) do update
          set api_url = excluded.api_url, api_secret_sealed = excluded.api_secret_sealed, updated_at = now()
        returning merchant_id`;
      return rows.length === 1;
    },

    /**
     * Sets the webhook signing secret. With `graceUntil`, the current one stays valid
     * until then (a rotation); without, it is simply replaced.
     */
    async setSigningSecret(
      merchantId: string,
      mode: Mode,
      sealed: Buffer,
      graceUntil: Date | null,
    ): Promise<boolean> {
      const rows = await sql`
        update partner_endpoints set
          previous_signing_secret_sealed = case when ${graceUntil}::timestamptz is null then null else signing_secret_sealed end,
          previous_valid_until = ${graceUntil},
          signing_secret_sealed = ${sealed},
          signing_secret_created_at = now(),
          updated_at = now()
        where merchant_id = ${merchantId} and mode = ${mode}
        returning merchant_id`;
      return rows.length === 1;
    },

    /**
     * Gives the endpoint its first webhook signing secret; false when it already has one
     * (kept: changing it is a rotation, so partners are not cut off).
     */
    async setFirstSigningSecret(merchantId: string, mode: Mode, sealed: Buffer): Promise<boolean> {
      const rows = await sql`
        update partner_endpoints
        set signing_secret_sealed = ${sealed}, signing_secret_created_at = now(), updated_at = now()
        where merchant_id = ${merchantId} and mode = ${mode} and signing_secret_sealed is null
        returning merchant_id`;
      return rows.length === 1;
    },

    /** Every partner endpoint with its sealed secrets, for the partner directory. */
    async listPartnerEndpoints(): Promise<PartnerEndpointRow[]> {
      const rows = await sql<
        {
          merchant_id: string;
          mode: Mode;
          api_url: string | null;
          api_secret_sealed: Buffer | null;
          webhook_url: string | null;
          webhook_events: string[] | null;
          signing_secret_sealed: Buffer | null;
          previous_signing_secret_sealed: Buffer | null;
          previous_valid_until: Date | null;
          changed_at: Date;
        }[]
      >`
        select p.merchant_id, p.mode, p.api_url, p.api_secret_sealed, p.webhook_url,
               p.webhook_events, p.signing_secret_sealed,
               p.previous_signing_secret_sealed, p.previous_valid_until,
               greatest(p.updated_at, m.updated_at) as changed_at
        from partner_endpoints p join merchants m on m.id = p.merchant_id
        where m.active`;
      return rows.map((row) => ({
        merchantId: row.merchant_id,
        mode: row.mode,
        apiUrl: row.api_url,
        apiSecretSealed: row.api_secret_sealed,
        webhookUrl: row.webhook_url,
        webhookEvents: row.webhook_events,
        signingSecretSealed: row.signing_secret_sealed,
        previousSigningSecretSealed: row.previous_signing_secret_sealed,
        previousValidUntil: row.previous_valid_until,
        changedAt: row.changed_at,
      }));
    },

    /**
     * The partner's server of a merchant and mode, its secret still sealed; null when the
     * merchant has none (a row holding only webhook settings is no partner server).
     */
    async findPartnerEndpoint(
      merchantId: string,
      mode: Mode,
    ): Promise<{ apiUrl: string; sealedSecret: Buffer } | null> {
      const rows = await sql<{ api_url: string; api_secret_sealed: Buffer }[]>`
        select api_url, api_secret_sealed from partner_endpoints
        where merchant_id = ${merchantId} and mode = ${mode} and api_url is not null`;
      const row = rows[0];
      return row ? { apiUrl: row.api_url, sealedSecret: row.api_secret_sealed } : null;
    },

    /** The webhook settings of a merchant and mode; null when it has no endpoint row at all. */
    async findWebhookSettings(merchantId: string, mode: Mode): Promise<WebhookSettingsRow | null> {
      const rows = await sql<WebhookSettingsDbRow[]>`
        select ${sql.unsafe(SETTINGS_COLUMNS)} from partner_endpoints
        where merchant_id = ${merchantId} and mode = ${mode}`;
      return rows[0] ? toSettings(rows[0]) : null;
    },

    /**
     * Changes the webhook URL and kinds (an absent field is kept; `url: null` goes back
     * to the default), creating the row for a merchant without a partner API, and gives
     * the endpoint `firstSecretSealed` as its signing secret if it has none yet, in one
     * statement. `secretCreated` says whether that happened (the caller shows it once).
     */
    async setWebhookSettings(
      merchantId: string,
      mode: Mode,
      patch: { url?: string | null; events?: readonly string[] },
      firstSecretSealed: Buffer,
    ): Promise<{ settings: WebhookSettingsRow; secretCreated: boolean; unchanged: boolean }> {
      const setUrl = patch.url !== undefined;
      const setEvents = patch.events !== undefined;
      const url = patch.url ?? null;
      const events = patch.events ? [...patch.events] : null;
      const [row] = await sql<
        (WebhookSettingsDbRow & { secret_created: boolean; unchanged: boolean })[]
      >`
        with before as (
          select webhook_url, webhook_events from partner_endpoints
          where merchant_id = ${merchantId} and mode = ${mode}
        )
        insert into partner_endpoints as p (merchant_id, mode, webhook_url, webhook_events,
          signing_secret_sealed, signing_secret_created_at)
        values (${merchantId}, ${mode}, ${url}, ${events}::text[], ${firstSecretSealed}, now())
        on conflict (merchant_id, mode) do update set
          webhook_url = case when ${setUrl} then ${url} else p.webhook_url end,
          webhook_events = case when ${setEvents} then ${events}::text[] else p.webhook_events end,
          signing_secret_sealed = coalesce(p.signing_secret_sealed, ${firstSecretSealed}),
          signing_secret_created_at = case when p.signing_secret_sealed is null then now()
                                           else p.signing_secret_created_at end,
          updated_at = now()
        returning ${sql.unsafe(SETTINGS_COLUMNS)},
          -- Sealing uses a fresh nonce: the stored secret is ours only if we stored it,
          -- also when two first PUTs race.
          signing_secret_sealed = ${firstSecretSealed} as secret_created,
          -- The same settings saved again: nothing changed, nothing for the audit log.
          exists (select 1 from before b where b.webhook_url is not distinct from p.webhook_url
            and b.webhook_events is not distinct from p.webhook_events)
            and p.signing_secret_sealed <> ${firstSecretSealed} as unchanged`;
      return {
        settings: toSettings(row!),
        secretCreated: row!.secret_created,
        unchanged: row!.unchanged,
      };
    },
  };
}

export type PartnerEndpointsTable = ReturnType<typeof partnerEndpointsTable>;
