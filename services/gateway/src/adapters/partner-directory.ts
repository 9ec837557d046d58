import { Kvm } from '@nats-io/kv';
import { Buckets, partnerDirectoryKey, PartnerDirectoryEntry } from '@dzpay/contracts';
import { keepReplicas, type Logger, type NatsConnection } from '@dzpay/platform';
import type { AccountsRepository, PartnerEndpointRow } from './accounts-repository.ts';

/** The KV bucket of a deployment: names allow letters, digits, `_` and `-` only. */
export function partnerBucketName(prefix: string): string {
  return `${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}_${Buckets.partners}`;
}

/**
 * Keeps the NATS KV bucket of partner endpoints in line with the accounts schema, so
 * services other than the gateway (the webhook dispatcher) know where and how to reach
 * a merchant's partner without reading the gateway's tables. Secrets stay sealed.
 */
export async function partnerDirectory(deps: {
  nats: NatsConnection;
  prefix: string;
  /** Copies of the bucket (STREAM_REPLICAS): the dispatcher needs it on every delivery. */
  replicas: number;
  accounts: AccountsRepository;
  logger: Logger;
  now?: () => Date;
  retryMs?: number;
}) {
  const name = partnerBucketName(deps.prefix);
  const kv = await new Kvm(deps.nats).create(name, { history: 1, replicas: deps.replicas });
  // create() leaves an existing bucket as it was: one made before replication was asked
  // for must be scaled, or it lives on one node and stops every delivery when that dies.
  await keepReplicas(deps.nats, `KV_${name}`, deps.replicas);
  const now = deps.now ?? (() => new Date());
  let publishing: Promise<void> = Promise.resolve();

  async function publishAll(): Promise<void> {
    const rows = await deps.accounts.listPartnerEndpoints();
    const current = new Set<string>();
    for (const row of rows) {
      const key = partnerDirectoryKey(row.merchantId, row.mode);
      current.add(key);
      await kv.put(key, JSON.stringify(entryOf(row, now())));
    }
    for await (const key of await kv.keys()) {
      if (!current.has(key)) await kv.delete(key);
    }
  }

  let retry: NodeJS.Timeout | undefined;
  const directory = {
    /**
     * Publishes every endpoint again; calls queue behind each other. A failed publish
     * (the bucket has no leader for a moment) is tried again until one succeeds, so a
     * change made during a NATS outage still reaches the dispatcher.
     */
    publish(): Promise<void> {
      clearTimeout(retry);
      publishing = publishing.then(publishAll).catch((err: unknown) => {
        deps.logger.error({ err }, 'partner directory publish failed; retrying');
        retry = setTimeout(() => void directory.publish(), deps.retryMs ?? 2_000);
        retry.unref();
      });
      return publishing;
    },
    /** Stops retrying (shutdown). */
    stop(): void {
      clearTimeout(retry);
    },
  };
  return directory;
}

function entryOf(row: PartnerEndpointRow, now: Date): PartnerDirectoryEntry {
  const signingSecrets: PartnerDirectoryEntry['signingSecrets'] = [];
  if (row.signingSecretSealed) {
    signingSecrets.push({ sealed: row.signingSecretSealed.toString('base64'), validUntil: null });
  }
  if (row.previousSigningSecretSealed && row.previousValidUntil && row.previousValidUntil > now) {
    signingSecrets.push({
      sealed: row.previousSigningSecretSealed.toString('base64'),
      validUntil: row.previousValidUntil.toISOString(),
    });
  }
  return PartnerDirectoryEntry.parse({
    merchantId: row.merchantId,
    mode: row.mode,
    apiUrl: row.apiUrl,
    apiSecretSealed: row.apiSecretSealed.toString('base64'),
    signingSecrets,
  });
}
