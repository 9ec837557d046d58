import { randomBytes } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import { partnerDirectoryKey, PartnerDirectoryEntry } from '@dzpay/contracts';
import { openSecret, partnerSecretOwner, sealSecret, signingSecretOwner } from '@dzpay/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsRepository } from '@dzpay/accounts';
import { partnerBucketName } from '../services/gateway/src/adapters/partner-directory.ts';
import { startStack, type Stack } from './support/stack.ts';

const KEY = randomBytes(32);
let stack: Stack;

beforeAll(async () => {
  stack = await startStack(
    'partner-directory',
    { SECRETS_KEY: KEY.toString('base64') },
    { withQrConfig: false },
  );
});
afterAll(() => stack?.stop());

async function entry(merchantId: string): Promise<PartnerDirectoryEntry | null> {
  const kv = await new Kvm(stack.gateway.runtime.nats).open(
    partnerBucketName(stack.infra.natsPrefix),
  );
  const found = await kv.get(partnerDirectoryKey(merchantId, 'test'));
  if (!found || found.operation !== 'PUT') return null;
  return PartnerDirectoryEntry.parse(found.json());
}

describe('the partner directory in NATS KV', () => {
  it('publishes a partner endpoint with its secrets sealed, follows rotations and deactivations', async () => {
    const merchant = await stack.merchant('Directory shop');
    const accounts = accountsRepository(stack.gateway.runtime.sql);
    const sealedApi = sealSecret('api-secret', KEY, partnerSecretOwner(merchant.id, 'test'));
    await accounts.setPartnerEndpoint(
      merchant.id,
      'test',
      'https://partner.example/api',
      sealedApi,
    );
    await accounts.setSigningSecret(
      merchant.id,
      'test',
      sealSecret('whsec_one', KEY, signingSecretOwner(merchant.id, 'test')),
      null,
    );

    await expect
      .poll(async () => (await entry(merchant.id))?.signingSecrets.length, { timeout: 5_000 })
      .toBe(1);
    const published = (await entry(merchant.id))!;
    expect(published.apiUrl).toBe('https://partner.example/api');
    expect(JSON.stringify(published)).not.toContain('api-secret');
    expect(
      openSecret(
        Buffer.from(published.apiSecretSealed!, 'base64'),
        KEY,
        partnerSecretOwner(merchant.id, 'test'),
      ),
    ).toBe('api-secret');

    const graceUntil = new Date(Date.now() + 3_600_000);
    await accounts.setSigningSecret(
      merchant.id,
      'test',
      sealSecret('whsec_two', KEY, signingSecretOwner(merchant.id, 'test')),
      graceUntil,
    );
    await expect
      .poll(async () => (await entry(merchant.id))?.signingSecrets.length, { timeout: 5_000 })
      .toBe(2);
    const rotated = (await entry(merchant.id))!;
    const open = (sealed: string) =>
      openSecret(Buffer.from(sealed, 'base64'), KEY, signingSecretOwner(merchant.id, 'test'));
    expect(rotated.signingSecrets.map((secret) => open(secret.sealed))).toEqual([
      'whsec_two',
      'whsec_one',
    ]);
    expect(rotated.signingSecrets[1]!.validUntil).toBe(graceUntil.toISOString());

    await accounts.setMerchantActive(merchant.id, false);
    await expect.poll(() => entry(merchant.id), { timeout: 5_000 }).toBeNull();
  });
});
