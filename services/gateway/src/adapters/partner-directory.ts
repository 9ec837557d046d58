import { Kvm } from '@nats-io/kv';
import { partnerDirectoryKey, PartnerDirectoryEntry } from '@dzpay/contracts';
import { keepReplicas, partnerBucketName, type Logger, type NatsConnection } from '@dzpay/platform';
import type { AccountsRepository, PartnerEndpointRow } from '@dzpay/accounts';

// The bucket's name is the readers' (libs/platform): one definition for both sides.
export { partnerBucketName };

/**
 * Keeps the NATS KV bucket of partner endpoints in line with the accounts schema, so
 * services other than the gateway (payments' product lookups, the webhook dispatcher)
 * know where and how to reach a merchant's partner without reading the gateway's
 * tables. Secrets stay sealed.
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

  /**
   * Every replica of the gateway publishes, each from its own read of the database, and
   * a write that timed out during a NATS failover may still land later. So each write is
   * conditional on the entry it read (its revision), an entry never replaces a newer
   * one (its version), and a key is deleted only if a second read of the database still
   * lacks it: a slow or stale publisher cannot undo a fresher one.
   */
  async function publishAll(): Promise<void> {
    const keysOf = (rows: PartnerEndpointRow[]) =>
      new Set(rows.map((row) => partnerDirectoryKey(row.merchantId, row.mode)));
    const rows = await deps.accounts.listPartnerEndpoints();
    for (const row of rows) {
      await putUnlessNewer(partnerDirectoryKey(row.merchantId, row.mode), entryOf(row, now()));
    }
    const current = keysOf(rows);
    const gone: string[] = [];
    for await (const key of await kv.keys()) if (!current.has(key)) gone.push(key);
    if (gone.length === 0) return;
    const stillThere = keysOf(await deps.accounts.listPartnerEndpoints());
    for (const key of gone.filter((key) => !stillThere.has(key))) {
      const existing = await kv.get(key);
      if (existing?.operation !== 'PUT') continue;
      await kv.delete(key, { previousSeq: existing.revision }).catch(ignoreConflict);
    }
  }

  async function putUnlessNewer(key: string, entry: PartnerDirectoryEntry): Promise<void> {
    const value = JSON.stringify(entry);
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await kv.get(key);
      const written = existing?.operation === 'PUT' ? versionOf(existing.string()) : null;
      if (written !== null && written > (entry.version ?? 0)) return;
      if (existing?.operation === 'PUT' && existing.string() === value) return;
      const done = await (
        existing?.operation === 'PUT'
          ? kv.update(key, value, existing.revision)
          : kv.create(key, value)
      ).then(
        () => true,
        (error: unknown) => ignoreConflict(error).then(() => false),
      );
      if (done) return;
    }
    throw new Error(`partner directory entry ${key} kept changing while it was written`);
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

/** The version of an entry as written (entries written before versions count as 0). */
function versionOf(json: string): number {
  const parsed = PartnerDirectoryEntry.safeParse(JSON.parse(json));
  return parsed.success ? (parsed.data.version ?? 0) : 0;
}

/** A conditional write lost to another writer: fine, the other one is as new or newer. */
function ignoreConflict(error: unknown): Promise<void> {
  if (
    error instanceof Error &&
    /wrong last sequence|key exists|wrong last msg/i.test(error.message)
  )
    return Promise.resolve();
  return Promise.reject(error instanceof Error ? error : new Error(String(error)));
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
    apiSecretSealed: row.apiSecretSealed?.toString('base64') ?? null,
    // Written only when chosen, so an entry of a merchant that never chose reads as before.
    ...(row.webhookUrl ? { webhookUrl: row.webhookUrl } : {}),
    ...(row.webhookEvents ? { webhookEvents: row.webhookEvents } : {}),
    signingSecrets,
    version: row.changedAt.getTime(),
  });
}
