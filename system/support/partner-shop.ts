import { randomBytes } from 'node:crypto';
import { StatusRecord } from '@dzpay/contracts';
import { accountsRepository } from '@dzpay/accounts';
import { partnerSecretOwner, sealSecret } from '@dzpay/platform';
import { expect } from 'vitest';
import { startPartnerServer, type PartnerServer } from './partner-server.ts';
import { startStack, type Stack } from './stack.ts';

export interface PartnerShop {
  stack: Stack;
  partner: PartnerServer;
  /** A merchant whose test mode's products are the partner's. */
  shop: Awaited<ReturnType<Stack['merchant']>>;
  /** `GET /partner/payments/v1/{reference}/status`, expected 200; the `data` record. */
  statusOf(reference: string, key?: string): Promise<StatusRecord>;
  stop(): Promise<void>;
}

/**
 * A stack with payments and status, the test partner server (its lookup knows every
 * product but a few named ones, support/partner-server.ts) and a merchant whose test
 * mode points at it: where the status endpoint's tests pay product references.
 */
export async function startPartnerShop(
  label: string,
  env: Record<string, string> = {},
): Promise<PartnerShop> {
  const secretsKey = randomBytes(32);
  const partner = await startPartnerServer();
  const stack = await startStack(
    label,
    { SECRETS_KEY: secretsKey.toString('base64'), RATE_LIMIT_PER_MINUTE: '100000', ...env },
    { withPayments: true, withStatus: true },
  );
  const shop = await stack.merchant(`Partner of ${label}`, { walletId: 'W-S' });
  await accountsRepository(stack.gateway.runtime.sql).setPartnerEndpoint(
    shop.id,
    'test',
    partner.url,
    sealSecret('secret', secretsKey, partnerSecretOwner(shop.id, 'test')),
  );
  return {
    stack,
    partner,
    shop,
    async statusOf(reference, key = shop.testKey) {
      const response = await stack.get(
        `/partner/payments/v1/${encodeURIComponent(reference)}/status`,
        { 'x-api-key': key },
      );
      expect(response.status).toBe(200);
      return StatusRecord.parse(((await response.json()) as { data: unknown }).data);
    },
    async stop() {
      await stack.stop();
      await partner.close();
    },
  };
}
