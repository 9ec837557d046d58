import { randomBytes } from 'node:crypto';
import { DeliveryView } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPartner, payProductReference } from './support/partner-merchant.ts';
import { CARDS } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

const SECRETS_KEY = randomBytes(32).toString('base64');
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let stack: Stack;
let partner: PartnerServer;
let merchantId: string;
let shop: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  partner = await startPartnerServer({ signingSecret: SIGNING_SECRET });
  stack = await startStack(
    'webhook-flow',
    { SECRETS_KEY },
    { withPayments: true, withWebhooks: { SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200' } },
  );
  shop = await stack.merchant('Webhook partner', { walletId: 'W-W' });
  merchantId = shop.id;
  await connectPartner(
    stack,
    merchantId,
    { url: partner.url, signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
});
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
});

function payReference(reference: string, card: { pan: string }) {
  return payProductReference(stack, merchantId, reference, card);
}

describe('every payment outcome reaches the partner as a signed webhook', () => {
  it('a paid product reference: payment.success, verified by the partner SDK, once', async () => {
    await payReference('BOOK-W1', CARDS.approved);
    await expect
      .poll(() => partner.webhooks.filter((event) => event.data.reference === 'BOOK-W1').length, {
        timeout: 10_000,
      })
      .toBe(1);
    const event = partner.webhooks.find((e) => e.data.reference === 'BOOK-W1')!;
    expect(event).toMatchObject({
      type: 'payment.success',
      data: { channel: 'AGENCY', amount: 1500.5, currency: 'DZD', status: 'success' },
    });
    expect(event.data.paymentId).toBeTruthy();
    expect(event.data.orderId).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(partner.webhooks.filter((e) => e.data.reference === 'BOOK-W1')).toHaveLength(1);
  });

  it('a declined card: payment.fail with its reason', async () => {
    await payReference('BOOK-W2', CARDS.insufficientFunds);
    await expect
      .poll(() => partner.webhooks.find((event) => event.data.reference === 'BOOK-W2')?.type, {
        timeout: 10_000,
      })
      .toBe('payment.fail');
    expect(
      partner.webhooks.find((e) => e.data.reference === 'BOOK-W2')!.data.failureReason,
    ).toMatch(/insufficient|provision/i);
  });

  it("the merchant lists a payment's deliveries with their attempts and replays one", async () => {
    const merchantKey = (await stack.merchant('Unrelated')).testKey;
    const event = partner.webhooks.find((e) => e.data.reference === 'BOOK-W1')!;
    const shopKey = shop.testKey;
    const listed = await stack.get(`/api/v1/payments/${event.data.paymentId}/webhooks`, {
      'x-api-key': shopKey,
    });
    expect(listed.status).toBe(200);
    const { data } = (await listed.json()) as { data: { deliveries: DeliveryView[] } };
    expect(data.deliveries).toHaveLength(1);
    const delivery = DeliveryView.parse(data.deliveries[0]);
    expect(delivery).toMatchObject({
      eventId: event.id,
      state: 'success',
      eventType: 'payment.success',
    });
    expect(delivery.attempts[0]).toMatchObject({ number: 1, statusCode: 200 });

    const replay = await stack.post(
      `/api/v1/webhooks/deliveries/${delivery.id}/replay`,
      {},
      { 'x-api-key': shopKey },
    );
    expect(replay.status).toBe(200);
    await expect
      .poll(() => partner.webhooks.filter((e) => e.id === event.id).length, { timeout: 10_000 })
      .toBe(2);

    const foreign = await stack.post(
      `/api/v1/webhooks/deliveries/${delivery.id}/replay`,
      {},
      { 'x-api-key': merchantKey },
    );
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { errorCode: string }).errorCode).toBe(
      'WEBHOOK404_DELIVERY_NOT_FOUND',
    );
    const none = await stack.get(`/api/v1/payments/${event.data.paymentId}/webhooks`, {
      'x-api-key': merchantKey,
    });
    expect(((await none.json()) as { data: { deliveries: unknown[] } }).data.deliveries).toEqual(
      [],
    );
  });
});
