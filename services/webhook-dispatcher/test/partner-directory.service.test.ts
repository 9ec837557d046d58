import { randomBytes, randomUUID } from 'node:crypto';
import { connectNats, type NatsConnection } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerDirectory } from '../src/adapters/partner-directory.ts';
import { registerPartner } from './fixtures.ts';

let infra: IsolatedInfra;
let writer: NatsConnection;
const key = randomBytes(32);

beforeAll(async () => {
  infra = await isolatedInfra('dispatcher-directory');
  writer = await connectNats(infra.natsUrl, 'directory-writer');
});
afterAll(async () => {
  await writer?.close();
  await infra?.cleanup();
});

describe("the dispatcher's partner directory", () => {
  it('stands in with the last good entry while the bucket cannot be read, for a bounded time', async () => {
    const merchantId = randomUUID();
    await registerPartner(writer, infra.natsPrefix, key, {
      merchantId,
      mode: 'test',
      apiUrl: 'http://127.0.0.1:9/partner',
      apiSecret: 'api-secret',
      signingSecret: 'signing-secret',
    });
    // Its own connection, closed below: reads then fail as when the bucket's node is down.
    const reader = await connectNats(infra.natsUrl, 'directory-reader');
    let now = Date.parse('2026-11-23T10:00:00Z');
    const stale: number[] = [];
    const directory = partnerDirectory({
      nats: reader,
      prefix: infra.natsPrefix,
      secretsKey: key,
      clock: () => new Date(now),
      staleForMs: 60_000,
      onStale: (_error, ageMs) => stale.push(ageMs),
    });

    const first = await directory.lookup(merchantId, 'test');
    expect(first?.apiUrl).toBe('http://127.0.0.1:9/partner');
    await reader.close();

    now += 30_000;
    expect(await directory.lookup(merchantId, 'test')).toEqual(first);
    expect(stale).toEqual([30_000]);

    // Past the bound the failure stands: the endpoint may have moved meanwhile.
    now += 31_000;
    await expect(directory.lookup(merchantId, 'test')).rejects.toThrow();
    // A partner never read before has nothing to stand in with.
    await expect(directory.lookup(randomUUID(), 'test')).rejects.toThrow();
  });
});
