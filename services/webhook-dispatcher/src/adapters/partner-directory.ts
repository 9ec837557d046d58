import { Kvm, type KV } from '@nats-io/kv';
import { Buckets, PartnerDirectoryEntry, partnerDirectoryKey, type Mode } from '@dzpay/contracts';
import {
  openSecret,
  partnerSecretOwner,
  signingSecretOwner,
  streamName,
  type NatsConnection,
} from '@dzpay/platform';

/** A merchant's partner server, secrets opened, as one attempt needs it. */
export interface PartnerEndpoint {
  apiUrl: string;
  apiSecret: string;
  /** Signs X-Signature: the newest signing secret. */
  signingSecret: string;
  /** Sign webhook-signature: every secret still in its grace period, newest first. */
  standardSecrets: string[];
}

/**
 * How long a looked-up endpoint is used before the directory is read again. A burst to
 * one partner then costs one read and one opening of its secrets per second instead of
 * one per attempt, and a changed API_URL or a rotated secret still applies within it.
 */
const FRESH_MS = 1_000;

/** How long a partner's last good entry may stand in for a directory that cannot be read. */
const STALE_FOR_MS = 5 * 60_000;

/**
 * Reads the partner directory the gateway keeps in the `<prefix>_PARTNERS` KV bucket,
 * each endpoint at most FRESH_MS old. A missing bucket or key is no endpoint; other
 * failures fall back to the last good entry for STALE_FOR_MS, then throw.
 */
export function partnerDirectory(deps: {
  nats: NatsConnection;
  prefix: string;
  secretsKey: Buffer;
  clock?: () => Date;
  staleForMs?: number;
  /** Told each time a last good entry stands in for an unreadable directory. */
  onStale?: (error: unknown, ageMs: number) => void;
}) {
  const clock = deps.clock ?? (() => new Date());
  const name = streamName(deps.prefix, Buckets.partners);
  let bucket: Promise<KV> | undefined;

  function open(): Promise<KV> {
    bucket ??= new Kvm(deps.nats).open(name).catch((error: unknown) => {
      bucket = undefined;
      throw error;
    });
    return bucket;
  }

  async function read(merchantId: string, mode: Mode): Promise<PartnerEndpoint | null> {
    const entry = await open()
      .then((kv) => kv.get(partnerDirectoryKey(merchantId, mode)))
      .catch((error: unknown) => {
        if (isMissingBucket(error)) return null;
        throw error;
      });
    if (entry === null || entry.operation !== 'PUT') return null;
    const partner = PartnerDirectoryEntry.parse(entry.json());
    const [newest] = partner.signingSecrets;
    if (newest === undefined) return null;
    const openSealed = (sealed: string, owner: string) =>
      openSecret(Buffer.from(sealed, 'base64'), deps.secretsKey, owner);
    const signingOwner = signingSecretOwner(merchantId, mode);
    const now = clock().getTime();
    return {
      apiUrl: partner.apiUrl,
      apiSecret: openSealed(partner.apiSecretSealed, partnerSecretOwner(merchantId, mode)),
      signingSecret: openSealed(newest.sealed, signingOwner),
      standardSecrets: partner.signingSecrets
        .filter((secret) => secret.validUntil === null || Date.parse(secret.validUntil) > now)
        .map((secret) => openSealed(secret.sealed, signingOwner)),
    };
  }

  const fresh = new Map<string, { readAt: number; endpoint: Promise<PartnerEndpoint | null> }>();
  const lastGood = new Map<string, { readAt: number; endpoint: PartnerEndpoint | null }>();
  const staleForMs = deps.staleForMs ?? STALE_FOR_MS;

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
      return endpoint;
    } catch (error) {
      const known = lastGood.get(key);
      if (known === undefined || clock().getTime() - known.readAt > staleForMs) throw error;
      deps.onStale?.(error, clock().getTime() - known.readAt);
      return known.endpoint;
    }
  }

  return {
    lookup(merchantId: string, mode: Mode): Promise<PartnerEndpoint | null> {
      const key = partnerDirectoryKey(merchantId, mode);
      const now = clock().getTime();
      const known = fresh.get(key);
      if (known !== undefined && now - known.readAt < FRESH_MS) return known.endpoint;
      // Attempts looking up the same partner meanwhile share this one read.
      const endpoint = readOrRecall(key, merchantId, mode, now);
      fresh.set(key, { readAt: now, endpoint });
      endpoint.catch(() => {
        if (fresh.get(key)?.endpoint === endpoint) fresh.delete(key);
      });
      return endpoint;
    },
  };
}

export type PartnerDirectory = ReturnType<typeof partnerDirectory>;

function isMissingBucket(error: unknown): boolean {
  return error instanceof Error && /stream not found|bucket not found/i.test(error.message);
}
