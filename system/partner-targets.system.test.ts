import { randomBytes } from 'node:crypto';
import { partnerSecretOwner, sealSecret } from '@dzpay/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_TARGETS, type Dial } from '@dzpay/testkit/loopback-connect';
import { accountsRepository } from '@dzpay/accounts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

// The whole way of a product page, as deployed: the merchant's endpoint set in the
// gateway's database, published to the partner directory, read by payments, whose
// lookup is refused for every private target. The stack's partner connections go
// through loopbackOnlyConnect: nothing is dialed outside loopback.
const SECRETS_KEY = randomBytes(32);
const dials: Dial[] = [];
let stack: Stack;
let partner: PartnerServer;

beforeAll(async () => {
  partner = await startPartnerServer();
  stack = await startStack(
    'partner-targets',
    { SECRETS_KEY: SECRETS_KEY.toString('base64'), RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: { PARTNER_ALLOW_PRIVATE_TARGETS: 'false' }, partnerDials: dials },
  );
});
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
});

const cases = PRIVATE_TARGETS.flatMap((target) =>
  (['test', 'live'] as const).map((mode) => ({ ...target, mode })),
);

describe('a product page whose partner is at a private address (private targets refused)', () => {
  it.each(cases)(
    '$mode endpoint at $host: the "partner unavailable" page, the partner never asked',
    async ({ host, mode }) => {
      const merchant = await stack.merchant();
      const port = new URL(partner.url).port;
      await accountsRepository(stack.gateway.runtime.sql).setPartnerEndpoint(
        merchant.id,
        mode,
        `http://${host}:${port}/products`,
        sealSecret('api-secret', SECRETS_KEY, partnerSecretOwner(merchant.id, mode)),
      );
      const asked = partner.requests.length;
      const response = await stack.get(`/pay/${merchant.id}/BOOK-1?mode=${mode}&lang=fr`);
      // The same page as a partner that is down: it tells nobody what listens there.
      expect(response.status).toBe(503);
      expect(await response.text()).toContain('ne répond pas');
      expect(partner.requests.length).toBe(asked);
      expect(dials.filter((dial) => dial.dialed)).toEqual([]);
      // The other mode has no endpoint: no payment page at all.
      const other = mode === 'test' ? 'live' : 'test';
      expect((await stack.get(`/pay/${merchant.id}/BOOK-1?mode=${other}`)).status).toBe(404);
    },
  );
});
