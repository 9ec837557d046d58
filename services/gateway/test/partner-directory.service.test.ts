import { randomBytes, randomUUID } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import { partnerDirectoryKey } from '@dzpay/contracts';
import { connectNats, createLogger, type NatsConnection } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountsRepository, PartnerEndpointRow } from '@dzpay/accounts';
import { partnerBucketName, partnerDirectory } from '../src/adapters/partner-directory.ts';

let infra: IsolatedInfra;
let nats: NatsConnection;

beforeAll(async () => {
  infra = await isolatedInfra('gateway-directory');
  nats = await connectNats(infra.natsUrl, 'gateway-directory-test');
});
afterAll(async () => {
  await nats?.close();
  await infra?.cleanup();
});

describe("the gateway's partner directory publisher", () => {
  it('publishes again until it gets through, so a change made while NATS is out is not lost', async () => {
    const merchantId = randomUUID();
    const row: PartnerEndpointRow = {
      merchantId,
      mode: 'test',
      apiUrl: 'http://127.0.0.1:9/partner',
      apiSecretSealed: randomBytes(40),
      signingSecretSealed: randomBytes(40),
      previousSigningSecretSealed: null,
      previousValidUntil: null,
      changedAt: new Date(),
    };
    // The first two reads fail, as when the bucket or the database is out for a moment.
    let failures = 2;
    const accounts = {
      listPartnerEndpoints: () =>
        failures-- > 0
          ? Promise.reject(new Error('no leader for the bucket'))
          : Promise.resolve([row]),
    } as unknown as AccountsRepository;
    const directory = await partnerDirectory({
      nats,
      prefix: infra.natsPrefix,
      replicas: 1,
      accounts,
      logger: createLogger('directory-test', 'silent'),
      retryMs: 100,
    });
    await directory.publish();
    const kv = await new Kvm(nats).open(partnerBucketName(infra.natsPrefix));
    await expect
      .poll(async () => (await kv.get(partnerDirectoryKey(merchantId, 'test')))?.operation, {
        timeout: 5_000,
        interval: 50,
      })
      .toBe('PUT');
    expect(failures).toBe(-1);
    directory.stop();
  });

  it('never lets a stale publisher replace a newer entry, nor delete one the database still has', async () => {
    const merchantId = randomUUID();
    const key = partnerDirectoryKey(merchantId, 'test');
    const row = (apiUrl: string, changedAt: number): PartnerEndpointRow => ({
      merchantId,
      mode: 'test',
      apiUrl,
      apiSecretSealed: randomBytes(40),
      signingSecretSealed: randomBytes(40),
      previousSigningSecretSealed: null,
      previousValidUntil: null,
      changedAt: new Date(changedAt),
    });
    const publisher = async (reads: PartnerEndpointRow[][]) => {
      let read = 0;
      const accounts = {
        listPartnerEndpoints: () => Promise.resolve(reads[Math.min(read++, reads.length - 1)]!),
      } as unknown as AccountsRepository;
      return partnerDirectory({
        nats,
        prefix: infra.natsPrefix,
        replicas: 1,
        accounts,
        logger: createLogger('directory-test', 'silent'),
      });
    };
    const kv = await new Kvm(nats).create(partnerBucketName(infra.natsPrefix));
    const apiUrlNow = async () =>
      ((await kv.get(key))?.json<{ apiUrl: string }>() ?? { apiUrl: null }).apiUrl;

    // The fresh replica read the new URL; the stale one read the old URL before it.
    const fresh = await publisher([[row('http://127.0.0.1:9/new', 2_000)]]);
    const stale = await publisher([[row('http://127.0.0.1:9/old', 1_000)]]);
    await fresh.publish();
    await stale.publish();
    expect(await apiUrlNow()).toBe('http://127.0.0.1:9/new');

    // A replica whose first read predates the endpoint lists the key as gone, but its
    // second read has it: the key stays.
    const early = await publisher([[], [row('http://127.0.0.1:9/new', 2_000)]]);
    await early.publish();
    expect((await kv.get(key))?.operation).toBe('PUT');
    // Gone from both reads: deleted.
    const removed = await publisher([[], []]);
    await removed.publish();
    expect((await kv.get(key))?.operation).toBe('DEL');
    for (const directory of [fresh, stale, early, removed]) directory.stop();
  });
});
