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
 * Reads the partner directory the gateway keeps in the `<prefix>_PARTNERS` KV bucket.
 * Read on every attempt, so a changed API_URL or a rotated secret applies to the next
 * retry. A missing bucket or key is no endpoint; other failures throw.
 */
export function partnerDirectory(deps: {
  nats: NatsConnection;
  prefix: string;
  secretsKey: Buffer;
  clock?: () => Date;
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

  return {
    async lookup(merchantId: string, mode: Mode): Promise<PartnerEndpoint | null> {
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
    },
  };
}

export type PartnerDirectory = ReturnType<typeof partnerDirectory>;

function isMissingBucket(error: unknown): boolean {
  return error instanceof Error && /stream not found|bucket not found/i.test(error.message);
}
