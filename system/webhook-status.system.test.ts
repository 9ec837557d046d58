import { randomBytes } from 'node:crypto';
import { StatusRecord } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPartner, payProductReference } from './support/partner-merchant.ts';
import { CARDS } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

const SECRETS_KEY = randomBytes(32).toString('base64');
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let stack: Stack;
const partners: PartnerServer[] = [];

beforeAll(async () => {
  stack = await startStack(
    'webhook-status',
    { SECRETS_KEY, STATUS_RATE_LIMIT_PER_MINUTE: '100000' },
    {
      withPayments: true,
      withStatus: true,
      withWebhooks: { SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE_MS: '0,400,400,400' },
    },
  );
});
afterAll(async () => {
  await stack?.stop();
  await Promise.all(partners.map((partner) => partner.close()));
});

/** A merchant whose partner server answers webhooks as `webhookStatus` says. */
async function partnerMerchant(webhookStatus: (call: number) => number) {
  const partner = await startPartnerServer({ signingSecret: SIGNING_SECRET, webhookStatus });
  partners.push(partner);
  const merchant = await stack.merchant('Partner', { walletId: 'W' });
  await connectPartner(
    stack,
    merchant.id,
    { url: partner.url, apiSecret: 'api', signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
  return { merchant, partner };
}

function pay(merchantId: string, reference: string) {
  return payProductReference(stack, merchantId, reference, CARDS.approved);
}

async function status(key: string, reference: string): Promise<StatusRecord> {
  const response = await stack.get(`/partner/payments/v1/${reference}/status`, {
    'x-api-key': key,
  });
  return StatusRecord.parse(((await response.json()) as { data: unknown }).data);
}

/** Polls the status until `done`, remembering every webhookDelivery value seen. */
async function watchDelivery(
  key: string,
  reference: string,
  done: (record: StatusRecord) => boolean,
) {
  const seen: (string | null)[] = [];
  const deadline = Date.now() + 15_000;
  for (;;) {
    const record = await status(key, reference);
    const value = record.payment?.webhookDelivery ?? null;
    if (seen.at(-1) !== value) seen.push(value);
    if (done(record) || Date.now() > deadline) return { seen, record };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('webhookDelivery in the status record', () => {
  it('a partner answering 500 three times gets the event on the 4th attempt: pending, then success', async () => {
    const { merchant, partner } = await partnerMerchant((call) => (call <= 3 ? 500 : 200));
    await pay(merchant.id, 'BOOK-WS1');
    const { seen, record } = await watchDelivery(
      merchant.testKey,
      'BOOK-WS1',
      (r) => r.payment?.webhookDelivery === 'success',
    );
    expect(record.stage).toBe('paid');
    expect(seen).toContain('pending');
    expect(seen.at(-1)).toBe('success');
    expect(partner.webhooks).toHaveLength(1);
  });

  it('a partner that never accepts it ends in fail, while the stage stays paid', async () => {
    const { merchant } = await partnerMerchant(() => 500);
    await pay(merchant.id, 'BOOK-WS2');
    const { record } = await watchDelivery(
      merchant.testKey,
      'BOOK-WS2',
      (r) => r.payment?.webhookDelivery === 'fail',
    );
    expect(record).toMatchObject({
      stage: 'paid',
      paid: true,
      payment: { webhookDelivery: 'fail' },
    });
  });
});
