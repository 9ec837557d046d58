import { randomBytes } from 'node:crypto';
import { StatusRecord } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsRepository } from '@dzpay/accounts';
import { partnerSecretOwner, sealSecret } from '@dzpay/platform';
import { CARDS, submitCard } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

const SECRETS_KEY = randomBytes(32);
let stack: Stack;
let partner: PartnerServer;
let shop: Awaited<ReturnType<Stack['merchant']>>;
let other: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  partner = await startPartnerServer();
  stack = await startStack(
    'status-flow',
    {
      SECRETS_KEY: SECRETS_KEY.toString('base64'),
      RATE_LIMIT_PER_MINUTE: '100000',
      STATUS_RATE_LIMIT_PER_MINUTE: '1000',
    },
    { withPayments: true, withStatus: true },
  );
  shop = await stack.merchant('Partner with status', { walletId: 'W-S' });
  other = await stack.merchant('Someone else');
  await accountsRepository(stack.gateway.runtime.sql).setPartnerEndpoint(
    shop.id,
    'test',
    partner.url,
    sealSecret('secret', SECRETS_KEY, partnerSecretOwner(shop.id, 'test')),
  );
});
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
});

async function statusOf(reference: string, key = shop.testKey): Promise<StatusRecord> {
  const response = await stack.get(`/partner/payments/v1/${encodeURIComponent(reference)}/status`, {
    'x-api-key': key,
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { statusCode: number; message: string; data: unknown };
  expect(body.statusCode).toBe(200);
  expect(typeof body.message).toBe('string');
  return StatusRecord.parse(body.data);
}

/** Starts paying a reference on its page; answers the checkout URL. */
async function startPaying(reference: string): Promise<string> {
  const started = await fetch(
    `${stack.gateway.url}/pay/${shop.id}/${encodeURIComponent(reference)}?mode=test`,
    {
      method: 'POST',
      redirect: 'manual',
    },
  );
  expect(started.status).toBe(303);
  return new URL(started.headers.get('location')!, stack.gateway.url).href.split('?')[0]!;
}

async function payOn(checkoutUrl: string, card: { pan: string }) {
  const formUrl = (
    await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })
  ).headers.get('location')!;
  const back = await submitCard(formUrl, card);
  await fetch(back.headers.get('location')!, { redirect: 'manual' });
}

describe('the status of a product reference, end to end', () => {
  it('an unknown reference is 200 not_found with nulls and DZD', async () => {
    expect(await statusOf('NEVER-SEEN')).toEqual({
      reference: 'NEVER-SEEN',
      stage: 'not_found',
      locked: false,
      paid: false,
      lockReleaseTime: null,
      paymentId: null,
      channel: 'AGENCY',
      currency: 'DZD',
      amount: null,
      payment: null,
    });
  });

  it('locked with a lockReleaseTime while the payer is on the form, then paid', async () => {
    const checkoutUrl = await startPaying('BOOK-S1');
    await expect
      .poll(async () => (await statusOf('BOOK-S1')).stage, { timeout: 5_000 })
      .toBe('locked');
    const locked = await statusOf('BOOK-S1');
    expect(locked.locked).toBe(true);
    expect(Date.parse(locked.lockReleaseTime!)).toBeGreaterThan(Date.now());
    expect(locked.amount).toBe(1500.5);
    expect(locked.payment?.status).toMatch(/pending|processing/);

    await payOn(checkoutUrl, CARDS.approved);
    await expect
      .poll(async () => (await statusOf('BOOK-S1')).stage, { timeout: 5_000 })
      .toBe('paid');
    const paid = await statusOf('BOOK-S1');
    expect(paid).toMatchObject({
      locked: false,
      paid: true,
      lockReleaseTime: null,
      channel: 'AGENCY',
    });
    expect(paid.payment).toMatchObject({ status: 'success', amount: 1500.5, currency: 'DZD' });
    expect(paid.payment!.orderId).toBeTruthy();
    expect(paid.payment!.paidAt).toBeTruthy();
    expect(paid.paymentId).toBe(paid.payment!.paymentId);
  });

  it('a declined card releases the reference', async () => {
    const checkoutUrl = await startPaying('BOOK-S2');
    await payOn(checkoutUrl, CARDS.insufficientFunds);
    await expect
      .poll(async () => (await statusOf('BOOK-S2')).stage, { timeout: 5_000 })
      .toBe('released');
    expect((await statusOf('BOOK-S2')).payment?.status).toBe('failed');
  });

  it('a refunded payment reads refunded', async () => {
    const checkoutUrl = await startPaying('BOOK-S3');
    await payOn(checkoutUrl, CARDS.approved);
    await expect
      .poll(async () => (await statusOf('BOOK-S3')).stage, { timeout: 5_000 })
      .toBe('paid');
    const { paymentId } = await statusOf('BOOK-S3');
    const refund = await stack.post(
      `/api/v1/payments/${paymentId}/refund`,
      {},
      { 'x-api-key': shop.testKey },
    );
    expect(refund.status).toBe(200);
    await expect
      .poll(async () => (await statusOf('BOOK-S3')).stage, { timeout: 5_000 })
      .toBe('refunded');
  });

  it("another merchant's reference is not_found, and references with reserved characters work", async () => {
    const reference = 'BOOK/S4 #1?x=é';
    await startPaying(reference);
    await expect
      .poll(async () => (await statusOf(reference)).stage, { timeout: 5_000 })
      .toBe('locked');
    expect((await statusOf(reference, other.testKey)).stage).toBe('not_found');
  });

  it('the query changes nothing', async () => {
    const before = await statusOf('BOOK-S1');
    for (let i = 0; i < 5; i++) await statusOf('BOOK-S1');
    expect(await statusOf('BOOK-S1')).toEqual(before);
  });
});
