import { randomBytes, randomUUID } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import { partnerDirectoryKey, type Mode, type PartnerDirectoryEntry } from '@dzpay/contracts';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { connectNats, type NatsConnection } from '../../src/nats.ts';
import { partnerBucketName, partnerDirectory } from '../../src/partner/partner-directory.ts';
import { partnerSecretOwner, sealSecret, signingSecretOwner } from '../../src/sealed-secret.ts';

let infra: IsolatedInfra;
let writer: NatsConnection;
const key = randomBytes(32);

beforeAll(async () => {
  infra = await isolatedInfra('partner-directory');
  writer = await connectNats(infra.natsUrl, 'directory-writer');
});
afterAll(async () => {
  // The testkit drops `<prefix>_*` streams; a bucket's is `KV_<prefix>_PARTNERS`.
  if (writer) {
    const kv = await new Kvm(writer).open(partnerBucketName(infra.natsPrefix));
    await kv.destroy().catch(() => false);
  }
  await writer?.close();
  await infra?.cleanup();
});

/** Writes an entry as the gateway's publisher does, secrets sealed. */
async function publish(
  merchantId: string,
  mode: Mode,
  apiUrl: string,
  signingSecret: string | null = 'signing-secret',
): Promise<void> {
  const kv = await new Kvm(writer).create(partnerBucketName(infra.natsPrefix));
  const entry: PartnerDirectoryEntry = {
    merchantId,
    mode,
    apiUrl,
    apiSecretSealed: sealSecret('api-secret', key, partnerSecretOwner(merchantId, mode)).toString(
      'base64',
    ),
    signingSecrets: signingSecret
      ? [
          {
            sealed: sealSecret(signingSecret, key, signingSecretOwner(merchantId, mode)).toString(
              'base64',
            ),
            validUntil: null,
          },
        ]
      : [],
  };
  await kv.put(partnerDirectoryKey(merchantId, mode), JSON.stringify(entry));
}

describe('the partner directory', () => {
  it('opens the secrets of an entry; one without signing secret has none to sign with', async () => {
    const [signed, unsigned] = [randomUUID(), randomUUID()];
    await publish(signed, 'live', 'https://partner.example/api');
    await publish(unsigned, 'test', 'https://partner.example/api', null);
    const directory = partnerDirectory({ nats: writer, prefix: infra.natsPrefix, secretsKey: key });
    expect(await directory.lookup(signed, 'live')).toEqual({
      apiUrl: 'https://partner.example/api',
      apiSecret: 'api-secret',
      signingSecret: 'signing-secret',
      standardSecrets: ['signing-secret'],
    });
    expect(await directory.lookup(unsigned, 'test')).toMatchObject({
      apiSecret: 'api-secret',
      signingSecret: null,
      standardSecrets: [],
    });
    // The other mode of the same merchant is another entry.
    expect(await directory.lookup(signed, 'test')).toBeNull();
  });

  it('keeps no "no endpoint": an entry published a moment later is seen at once', async () => {
    const merchantId = randomUUID();
    const directory = partnerDirectory({ nats: writer, prefix: infra.natsPrefix, secretsKey: key });
    expect(await directory.lookup(merchantId, 'test')).toBeNull();
    await publish(merchantId, 'test', 'https://partner.example/api');
    expect((await directory.lookup(merchantId, 'test'))?.apiUrl).toBe(
      'https://partner.example/api',
    );
  });

  it('uses a found entry for freshMs, then reads it again', async () => {
    const merchantId = randomUUID();
    let now = Date.parse('2026-11-23T10:00:00Z');
    const directory = partnerDirectory({
      nats: writer,
      prefix: infra.natsPrefix,
      secretsKey: key,
      clock: () => new Date(now),
      freshMs: 1_000,
    });
    await publish(merchantId, 'test', 'https://old.example/api');
    expect((await directory.lookup(merchantId, 'test'))?.apiUrl).toBe('https://old.example/api');
    await publish(merchantId, 'test', 'https://new.example/api');
    expect((await directory.lookup(merchantId, 'test'))?.apiUrl).toBe('https://old.example/api');
    now += 1_000;
    expect((await directory.lookup(merchantId, 'test'))?.apiUrl).toBe('https://new.example/api');
  });

  it('stands in with the last good entry while the bucket cannot be read, for a bounded time', async () => {
    const merchantId = randomUUID();
    await publish(merchantId, 'test', 'http://127.0.0.1:9/partner');
    // Its own connection, closed below: reads then fail as when the bucket's node is down.
    const reader = await connectNats(infra.natsUrl, 'directory-reader');
    let now = Date.parse('2026-11-23T10:00:00Z');
    const stale: number[] = [];
    const warned: string[] = [];
    const directory = partnerDirectory({
      nats: reader,
      prefix: infra.natsPrefix,
      secretsKey: key,
      clock: () => new Date(now),
      staleForMs: 60_000,
      onStale: (_error, ageMs) => stale.push(ageMs),
      logger: createLogger('directory-test', 'info', {
        write: (line: string) => void warned.push((JSON.parse(line) as { msg: string }).msg),
      }),
    });

    const first = await directory.lookup(merchantId, 'test');
    expect(first?.apiUrl).toBe('http://127.0.0.1:9/partner');
    await reader.close();

    now += 30_000;
    expect(await directory.lookup(merchantId, 'test')).toEqual(first);
    expect(stale).toEqual([30_000]);
    // A failover makes every lookup stand in: the log says so once, not each time.
    now += 1;
    expect(await directory.lookup(merchantId, 'test')).toEqual(first);
    expect(warned).toEqual(['partner directory unreadable; its last good entries stand in']);

    // Past the bound the failure stands: the endpoint may have moved meanwhile.
    now += 30_999;
    await expect(directory.lookup(merchantId, 'test')).rejects.toThrow();
    // A partner never read before has nothing to stand in with.
    await expect(directory.lookup(randomUUID(), 'test')).rejects.toThrow();
  });
});
