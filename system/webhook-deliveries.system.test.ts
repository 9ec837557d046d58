import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardUser, DashboardAgent } from './support/dashboard-agent.ts';
import { connectPartner, payProductReference } from './support/partner-merchant.ts';
import { CARDS } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

// The page of every webhook delivery and GET /api/v1/webhooks/deliveries over the whole
// stack: a payment's webhook refused once by the partner, then delivered, shows with both
// attempts on the page and in the API alike; the page's resend sends it again; another
// merchant sees none of it.

const SECRETS_KEY = randomBytes(32).toString('base64');
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const password = 'correct horse battery staple';
let stack: Stack;
let partner: PartnerServer;
let shop: Awaited<ReturnType<Stack['merchant']>>;
let other: Awaited<ReturnType<Stack['merchant']>>;
let browser: DashboardAgent;

interface Listed {
  id: string;
  eventId: string;
  eventType: string;
  paymentId: string | null;
  reference: string | null;
  state: string;
  attempts: {
    number: number;
    statusCode: number | null;
    startedAt: string;
    error: string | null;
  }[];
}

const poll = { timeout: 15_000, interval: 100 };

async function api(key: string, query = '') {
  const response = await stack.get(`/api/v1/webhooks/deliveries${query}`, { 'x-api-key': key });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const deliveriesOf = async (key: string, query = '') =>
  ((await api(key, query)).body.data as { deliveries: Listed[] }).deliveries;
const ofReference = async (reference: string) =>
  (await deliveriesOf(shop.testKey)).find((d) => d.reference === reference);

beforeAll(async () => {
  // The partner's server refuses the first webhook (503), then takes every one.
  partner = await startPartnerServer({
    signingSecret: SIGNING_SECRET,
    webhookStatus: (call) => (call === 1 ? 503 : 200),
  });
  stack = await startStack(
    'webhook-deliveries',
    { SECRETS_KEY },
    {
      withPayments: true,
      withWebhooks: { SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE_MS: '0,300,300' },
      withDashboard: true,
    },
  );
  shop = await stack.merchant('Librairie Oran', { walletId: 'W-D' });
  other = await stack.merchant('Another shop', { walletId: 'W-O' });
  await connectPartner(
    stack,
    shop.id,
    { url: partner.url, signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
  await createDashboardUser(stack, shop.id, 'hooks@oran.example', password);
  browser = new DashboardAgent(stack.dashboard!.url, { 'accept-language': 'en' });
  expect((await browser.login('hooks@oran.example', password)).status).toBe(303);
  await payProductReference(stack, shop.id, 'BOOK-D1', CARDS.approved);
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
});

describe('every webhook delivery', () => {
  it('a webhook that failed, then was delivered, is listed with both attempts by the API', async () => {
    await expect.poll(async () => (await ofReference('BOOK-D1'))?.state, poll).toBe('success');
    const delivery = (await ofReference('BOOK-D1'))!;
    expect(delivery.eventType).toBe('payment.success');
    expect(delivery.attempts.map((a) => [a.number, a.statusCode, a.error])).toEqual([
      [1, 503, 'HTTP 503'],
      [2, 200, null],
    ]);
    // The typed client reads the same page.
    const viaClient = await stack.client(shop.testKey).listWebhookDeliveries({ limit: 5 });
    expect(viaClient.deliveries.map((d) => d.id)).toContain(delivery.id);
    // Filters: delivered yes, given up no; by payment.
    expect((await deliveriesOf(shop.testKey, '?outcome=delivered')).map((d) => d.id)).toContain(
      delivery.id,
    );
    expect(await deliveriesOf(shop.testKey, '?outcome=given_up')).toEqual([]);
    expect(
      (await deliveriesOf(shop.testKey, `?paymentId=${delivery.paymentId}`)).map((d) => d.id),
    ).toEqual([delivery.id]);
  });

  it('shows the same delivery and attempts on the dashboard page, and filters it', async () => {
    const delivery = (await ofReference('BOOK-D1'))!;
    const page = await browser.get('/dashboard/webhooks/deliveries');
    expect(page.status).toBe(200);
    expect(page.html).toContain('BOOK-D1');
    expect(page.html).toContain(`/dashboard/payments/${delivery.paymentId}`);
    expect(page.html).toContain('HTTP&nbsp;503');
    expect(page.html).toContain('HTTP&nbsp;200');
    expect(page.html).toContain(`/dashboard/webhooks/deliveries/${delivery.id}/replay`);
    for (const attempt of delivery.attempts)
      expect(page.html).toContain(`<time datetime="${attempt.startedAt}">`);

    const givenUp = await browser.get('/dashboard/webhooks/deliveries?outcome=given_up');
    expect(givenUp.html).not.toContain('BOOK-D1');
    expect(givenUp.html).toContain('No webhook delivery matches these filters.');
    const bad = await browser.get('/dashboard/webhooks/deliveries?paymentId=nope&from=2026-13-01');
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Payment id: enter a payment id');
    expect(bad.html).toContain('From: choose a day.');
  });

  it('resends from the page: the partner gets the same event again, a third attempt shows', async () => {
    const delivery = (await ofReference('BOOK-D1'))!;
    const before = partner.webhooks.filter((e) => e.data.reference === 'BOOK-D1').length;
    await browser.get('/dashboard/webhooks/deliveries?outcome=delivered');
    const resent = await browser.post(`/dashboard/webhooks/deliveries/${delivery.id}/replay`, {
      back: '/dashboard/webhooks/deliveries?outcome=delivered',
    });
    expect(resent.status).toBe(303);
    expect(resent.location).toBe('/dashboard/webhooks/deliveries?outcome=delivered');
    const next = await browser.get(resent.location!);
    expect(next.html).toContain('The webhook will be sent again, with the same event id.');

    await expect
      .poll(() => partner.webhooks.filter((e) => e.data.reference === 'BOOK-D1').length, poll)
      .toBe(before + 1);
    const again = partner.webhooks.filter((e) => e.data.reference === 'BOOK-D1');
    expect(again.at(-1)!.id).toBe(delivery.eventId);
    await expect.poll(async () => (await ofReference('BOOK-D1'))?.attempts.length, poll).toBe(3);
    expect((await ofReference('BOOK-D1'))!.state).toBe('success');
  });

  it('never shows a merchant another’s deliveries, nor lets it resend one', async () => {
    const delivery = (await ofReference('BOOK-D1'))!;
    expect(await deliveriesOf(other.testKey)).toEqual([]);
    expect(await deliveriesOf(other.testKey, `?paymentId=${delivery.paymentId}`)).toEqual([]);
    // The other mode of the same merchant is another list too.
    expect(await deliveriesOf(shop.liveKey)).toEqual([]);
    const replay = await stack.post(
      `/api/v1/webhooks/deliveries/${delivery.id}/replay`,
      {},
      { 'x-api-key': other.testKey },
    );
    expect(replay.status).toBe(404);
  });

  it('answers a bad query with the spec’s envelope, naming the field', async () => {
    const unknown = await api(shop.testKey, '?merchantId=x');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ statusCode: 400 });
    expect(JSON.stringify(unknown.body)).toContain('merchantId');
    const outcome = await api(shop.testKey, '?outcome=lost');
    expect(outcome.status).toBe(400);
    expect(JSON.stringify(outcome.body)).toContain(
      'outcome must be delivered, failing or given_up',
    );
    const reversed = await api(shop.testKey, '?from=2026-03-02&to=2026-03-01');
    expect(reversed.status).toBe(400);
    expect(JSON.stringify(reversed.body)).toContain('to must not be before from');
    const limit = await api(shop.testKey, '?limit=0');
    expect(limit.status).toBe(400);
    expect((await stack.get('/api/v1/webhooks/deliveries')).status).toBe(401);
  });
});
