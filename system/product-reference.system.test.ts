import { randomBytes } from 'node:crypto';
import { StatusRecord } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  spellingOf,
  startCampaignPartner,
  type CampaignPartner,
  type LookupCollation,
} from '../campaign/partner.ts';
import { seededRng } from '../campaign/rng.ts';
import { connectPartner } from './support/partner-merchant.ts';
import { CARDS, submitCard } from './support/payer.ts';
import { startStack, type Stack } from './support/stack.ts';

/**
 * One sale per product as the partner sees it, end to end: the campaign's partner, whose
 * database ignores letter case (or case and Unicode forms), payers typing the product
 * in other spellings on the pay pages, webhooks and the status endpoint.
 */

const SECRETS_KEY = randomBytes(32).toString('base64');
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const rng = seededRng(22, 'product-reference');
let stack: Stack;
const partners: CampaignPartner[] = [];

beforeAll(async () => {
  stack = await startStack(
    'product-reference',
    { SECRETS_KEY, RATE_LIMIT_PER_MINUTE: '100000', STATUS_RATE_LIMIT_PER_MINUTE: '1000' },
    { withPayments: true, withStatus: true, withWebhooks: { SECRETS_KEY } },
  );
});
afterAll(async () => {
  await stack?.stop();
  await Promise.all(partners.map((partner) => partner.close()));
});

/** A merchant whose test mode is the campaign's partner, comparing references by `collation`. */
async function shopWith(collation: LookupCollation, accentedNames = false) {
  const partner = await startCampaignPartner({
    merchants: 1,
    apiSecret: () => 'api-secret',
    signingSecret: () => SIGNING_SECRET,
    rng: rng.fork(collation),
    collation,
    accentedNames,
  });
  partners.push(partner);
  const shop = await stack.merchant(`Partner ${collation}`, { walletId: 'W-R' });
  await connectPartner(
    stack,
    shop.id,
    { url: partner.apiUrl(0), apiSecret: 'api-secret', signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
  const page = (reference: string) =>
    `${stack.gateway.url}/pay/${shop.id}/${encodeURIComponent(reference)}?mode=test&lang=fr`;
  return { partner, shop, page, product: partner.available(0)[0]! };
}

const post = (url: string) => fetch(url, { method: 'POST', redirect: 'manual' });

/** The checkout's pay button, the card form and the way back. */
async function payFrom(started: Response): Promise<void> {
  expect(started.status).toBe(303);
  const checkout = new URL(started.headers.get('location')!, stack.gateway.url).href.split('?')[0]!;
  const form = (await post(`${checkout}/pay`)).headers.get('location')!;
  const back = await submitCard(form, CARDS.approved);
  await fetch(back.headers.get('location')!, { redirect: 'manual' });
}

async function statusOf(key: string, reference: string): Promise<StatusRecord> {
  const response = await stack.get(`/partner/payments/v1/${encodeURIComponent(reference)}/status`, {
    'x-api-key': key,
  });
  return StatusRecord.parse(((await response.json()) as { data: unknown }).data);
}

/** The payment.success webhooks the partner received, by the reference they carry. */
const successes = (partner: CampaignPartner) =>
  partner.webhooks
    .filter((webhook) => webhook.event.type === 'payment.success')
    .map((webhook) => webhook.event.data.reference);

describe('a partner whose lookup ignores letter case', () => {
  it('sells its product once to payers of two spellings: one payment.success, under its reference', async () => {
    const { partner, shop, page, product } = await shopWith('case-insensitive');
    const other = spellingOf(product, rng, 'case');
    expect(other).not.toBe(product);
    expect(partner.productOf(0, other)).toBe(product);

    // The page shows the product under the partner's reference, whatever was typed.
    const shown = await fetch(page(other));
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain(product);

    const first = await post(page(product));
    const second = await post(page(other));
    expect(second.status).toBe(409);
    expect(await second.text()).toContain('en cours de paiement');

    await payFrom(first);
    const after = await post(page(other));
    expect(after.status).toBe(409);
    expect(await after.text()).toContain('déjà payée');

    await expect.poll(() => successes(partner), { timeout: 15_000 }).toEqual([product]);
    await expect
      .poll(async () => (await statusOf(shop.testKey, product)).stage, { timeout: 15_000 })
      .toBe('paid');
    // The status endpoint reads the reference the partner sells under, as its webhooks
    // carry it: another spelling is no payment of dzpay's.
    expect((await statusOf(shop.testKey, other)).stage).toBe('not_found');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(successes(partner)).toEqual([product]);
  });
});

describe('a partner whose lookup ignores letter case and Unicode forms', () => {
  it('sells its product once to a payer typing it fullwidth, decomposed and in another case', async () => {
    const { partner, page, product } = await shopWith('case-and-unicode-insensitive', true);
    const other = spellingOf(product, rng, 'unicode');
    expect(other.normalize('NFC')).not.toBe(product);
    expect(partner.productOf(0, other)).toBe(product);

    const first = await post(page(other));
    const second = await post(page(product));
    expect(second.status).toBe(409);
    expect(await second.text()).toContain('en cours de paiement');
    await payFrom(first);

    await expect.poll(() => successes(partner), { timeout: 15_000 }).toEqual([product]);
  });
});

describe('an exact partner', () => {
  it('is asked in NFC: a payer typing its accented product decomposed still finds it', async () => {
    const { page, product } = await shopWith('exact', true);
    const shown = await fetch(page(product.normalize('NFD')));
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain(product);
  });
});
