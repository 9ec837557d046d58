import { Kvm, type KV } from '@nats-io/kv';
import {
  Buckets,
  DEFAULT_WEBHOOK_EVENTS,
  PartnerDirectoryEntry,
  partnerDirectoryKey,
  type Mode,
} from '@dzpay/contracts';
import type { Logger } from '../logger.ts';
import type { NatsConnection } from '../nats.ts';
import { streamName } from '../nats.ts';
import { outageLog } from '../nats-weather.ts';
import { openSecret, partnerSecretOwner, signingSecretOwner } from '../sealed-secret.ts';

/** The KV bucket of the partner directory of a deployment (`<prefix>_PARTNERS`). */
export function partnerBucketName(prefix: string): string {
  return streamName(prefix, Buckets.partners);
}

/** A merchant's partner server in one mode, its secrets opened. */
export interface PartnerEndpoint {
  apiUrl: string;
  /** Sent as `Authorization: Bearer` on product lookups and webhooks. */
  apiSecret: string;
  /** Signs X-Signature: the newest signing secret; null while the endpoint has none. */
  signingSecret: string | null;
  /** Sign webhook-signature: every secret still in its grace period, newest first. */
  standardSecrets: string[];
}

/**
 * Where and how a merchant's webhooks go in one mode, its secrets opened. An entry
 * exists once the merchant has a partner API or a webhook URL.
 */
export interface WebhookTarget {
  /** The partner's API (product lookups), if any: webhooks default to `{apiUrl}/webhooks/platform`. */
  apiUrl: string | null;
  /** Sent as `Authorization: Bearer` when the partner has an API secret. */
  apiSecret: string | null;
  /** The URL the merchant chose for webhooks; null: the default under apiUrl. */
  webhookUrl: string | null;
  /** The webhook kinds the endpoint wants. */
  events: readonly string[];
  signingSecret: string | null;
  standardSecrets: string[];
  /** The entry's version (when the gateway's row last changed, in ms). */
  version: number;
}

/** How long webhookTarget waits for an entry at least as new as asked. */
const AT_LEAST_WAIT_MS = 2_000;
const AT_LEAST_POLL_MS = 50;

/** How long a looked-up endpoint is used before the directory is read again (by default). */
const FRESH_MS = 1_000;

/** How long a partner's last good entry may stand in for a directory that cannot be read. */
const STALE_FOR_MS = 5 * 60_000;

/**
 * Reads the partner directory the gateway keeps in the `<prefix>_PARTNERS` KV bucket
 * (published from its database, secrets sealed under SECRETS_KEY): where a merchant's
 * partner server is and the secrets to reach it. A missing bucket or key is no endpoint.
 *
 * An endpoint is used for `freshMs` before it is read again: a burst of webhooks to one
 * partner then costs one read and one opening of its secrets, and a changed API_URL or
 * a rotated secret still applies within it. Other failures fall back to the last good
 * entry for `staleForMs`, then throw.
 */
export function partnerDirectory(deps: {
  nats: NatsConnection;
  prefix: string;
  secretsKey: Buffer;
  clock?: () => Date;
  freshMs?: number;
  staleForMs?: number;
  /** Told each time a last good entry stands in for an unreadable directory. */
  onStale?: (error: unknown, ageMs: number) => void;
  /**
   * Warned once when last good entries start standing in (the bucket's leader lost),
   * and once when the directory reads again, with how long and how often: a failover
   * makes every lookup stand in, and one line per lookup would bury the rest.
   */
  logger?: Logger;
}) {
  const clock = deps.clock ?? (() => new Date());
  const outage =
    deps.logger &&
    outageLog(deps.logger, {
      waits: 'partner directory unreadable; its last good entries stand in',
      back: 'partner directory readable again',
      failed: 'partner directory unreadable; its last good entries stand in',
    });
  const name = partnerBucketName(deps.prefix);
  const freshMs = deps.freshMs ?? FRESH_MS;
  const staleForMs = deps.staleForMs ?? STALE_FOR_MS;
  let bucket: Promise<KV> | undefined;

  function open(): Promise<KV> {
    bucket ??= new Kvm(deps.nats).open(name).catch((error: unknown) => {
      bucket = undefined;
      throw error;
    });
    return bucket;
  }

  async function read(merchantId: string, mode: Mode): Promise<WebhookTarget | null> {
    const entry = await open()
      .then((kv) => kv.get(partnerDirectoryKey(merchantId, mode)))
      .catch((error: unknown) => {
        if (isMissingBucket(error)) return null;
        throw error;
      });
    if (entry === null || entry.operation !== 'PUT') return null;
    const partner = PartnerDirectoryEntry.parse(entry.json());
    const openSealed = (sealed: string, owner: string) =>
      openSecret(Buffer.from(sealed, 'base64'), deps.secretsKey, owner);
    const signingOwner = signingSecretOwner(merchantId, mode);
    const now = clock().getTime();
    const [newest] = partner.signingSecrets;
    return {
      apiUrl: partner.apiUrl,
      apiSecret:
        partner.apiSecretSealed === null
          ? null
          : openSealed(partner.apiSecretSealed, partnerSecretOwner(merchantId, mode)),
      webhookUrl: partner.webhookUrl ?? null,
      version: partner.version ?? 0,
      events: partner.webhookEvents ?? DEFAULT_WEBHOOK_EVENTS,
      signingSecret: newest ? openSealed(newest.sealed, signingOwner) : null,
      standardSecrets: partner.signingSecrets
        .filter((secret) => secret.validUntil === null || Date.parse(secret.validUntil) > now)
        .map((secret) => openSealed(secret.sealed, signingOwner)),
    };
  }

  const fresh = new Map<string, { readAt: number; endpoint: Promise<WebhookTarget | null> }>();
  const lastGood = new Map<string, { readAt: number; endpoint: WebhookTarget | null }>();

  /**
   * The directory's answer; when the bucket cannot be read (its node is down, a leader
   * is being elected), the last good answer of at most `staleForMs` ago instead, so a
   * short NATS outage delays no webhook. Older than that, the failure stands: an
   * endpoint may have moved or a secret been revoked meanwhile.
   */
  async function readOrRecall(key: string, merchantId: string, mode: Mode, now: number) {
    try {
      const endpoint = await read(merchantId, mode);
      lastGood.set(key, { readAt: now, endpoint });
      outage?.cleared();
      return endpoint;
    } catch (error) {
      const known = lastGood.get(key);
      if (known === undefined || clock().getTime() - known.readAt > staleForMs) throw error;
      deps.onStale?.(error, clock().getTime() - known.readAt);
      outage?.failed(error);
      return known.endpoint;
    }
  }

  function target(merchantId: string, mode: Mode): Promise<WebhookTarget | null> {
    const key = partnerDirectoryKey(merchantId, mode);
    const now = clock().getTime();
    const known = fresh.get(key);
    if (known !== undefined && now - known.readAt < freshMs) return known.endpoint;
    // Lookups of the same partner meanwhile share this one read.
    const endpoint = readOrRecall(key, merchantId, mode, now);
    fresh.set(key, { readAt: now, endpoint });
    const forget = () => {
      if (fresh.get(key)?.endpoint === endpoint) fresh.delete(key);
    };
    // No endpoint is not kept: one published a moment later is seen at once.
    endpoint.then((found) => (found === null ? forget() : undefined), forget);
    return endpoint;
  }

  return {
    /** The partner's API for product lookups; null when the merchant has none (webhooks only). */
    async lookup(merchantId: string, mode: Mode): Promise<PartnerEndpoint | null> {
      const found = await target(merchantId, mode);
      if (found?.apiUrl == null || found.apiSecret === null) return null;
      return {
        apiUrl: found.apiUrl,
        apiSecret: found.apiSecret,
        signingSecret: found.signingSecret,
        standardSecrets: found.standardSecrets,
      };
    },
    /**
     * Where the merchant's webhooks go, which kinds, and the secrets to sign them. With
     * `minVersion` (the version of a change the caller just made at the gateway), the
     * directory is read past its cache until the entry is at least that new, for up to
     * 2 s (the gateway publishes a change within milliseconds); then the newest read.
     */
    async webhookTarget(
      merchantId: string,
      mode: Mode,
      options: { minVersion?: number } = {},
    ): Promise<WebhookTarget | null> {
      const found = await target(merchantId, mode);
      const { minVersion } = options;
      if (minVersion === undefined || (found !== null && found.version >= minVersion)) return found;
      const key = partnerDirectoryKey(merchantId, mode);
      const deadline = clock().getTime() + AT_LEAST_WAIT_MS;
      for (;;) {
        const now = clock().getTime();
        const reading = readOrRecall(key, merchantId, mode, now);
        const latest = await reading;
        // What was read is the freshest there is: later lookups take it.
        fresh.set(key, { readAt: now, endpoint: reading });
        if ((latest !== null && latest.version >= minVersion) || now >= deadline) return latest;
        await new Promise((resolve) => setTimeout(resolve, AT_LEAST_POLL_MS));
      }
    },
  };
}

export type PartnerDirectory = ReturnType<typeof partnerDirectory>;

function isMissingBucket(error: unknown): boolean {
  return error instanceof Error && /stream not found|bucket not found/i.test(error.message);
}
