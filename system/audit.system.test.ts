import { randomBytes } from 'node:crypto';
import { AuditEventsResponse, type AuditEventView } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardUser, DashboardAgent, textOf } from './support/dashboard-agent.ts';
import { paidPayment, readPayment } from './support/paid-payment.ts';
import { startStack, type Stack } from './support/stack.ts';

// The audit log end to end: refunds, cancels, keys, webhook settings and team changes,
// made in the dashboard (as a user) and with the API (as a key, recorded by the gateway's
// hooks), read back in the dashboard and with GET /api/v1/audit-events.

const SECRETS_KEY = randomBytes(32).toString('base64');
const password = 'correct horse battery staple';
let stack: Stack;
let shop: Awaited<ReturnType<Stack['merchant']>>;
let owner: DashboardAgent;
let seq = 0;

const paid = () =>
  paidPayment(stack, shop.testKey, { amount: 300_000, reference: `AUDIT-${Date.now()}-${seq++}` });
const read = (id: string) => readPayment(stack, shop.testKey, id);

async function auditEvents(query = '', key = shop.testKey) {
  const response = await stack.get(`/api/v1/audit-events${query}`, { 'x-api-key': key });
  return { status: response.status, body: await response.json() };
}

async function events(query = '', key = shop.testKey): Promise<AuditEventView[]> {
  const { status, body } = await auditEvents(query, key);
  expect(status).toBe(200);
  return AuditEventsResponse.parse(body).data.events;
}

/** The API's events of an action and target, waited for (the gateway writes after answering). */
async function eventOf(action: string, target: string | null, key = shop.testKey) {
  let found: AuditEventView | undefined;
  await expect
    .poll(
      async () => {
        found = (await events(`?action=${action}&limit=100`, key)).find(
          (event) => target === null || event.target === target,
        );
        return found !== undefined;
      },
      { timeout: 5_000 },
    )
    .toBe(true);
  return found!;
}

beforeAll(async () => {
  stack = await startStack(
    'audit',
    { SECRETS_KEY, RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: true, withDashboard: true },
  );
  shop = await stack.merchant('Quincaillerie du Port');
  await createDashboardUser(stack, shop.id, 'owner@port.dz', password);
  owner = new DashboardAgent(stack.dashboard!.url, { 'accept-language': 'en' });
  expect((await owner.login('owner@port.dz', password)).status).toBe(303);
}, 90_000);
afterAll(() => stack?.stop());

describe('actions in the dashboard', () => {
  it('a refund is recorded with who, the payment and the amount', async () => {
    const payment = await paid();
    await owner.get(`/dashboard/payments/${payment.id}`);
    const confirm = await owner.post(`/dashboard/payments/${payment.id}/refund/confirm`, {
      amount: '1000',
      idempotencyKey: 'audit-refund-1',
    });
    expect(confirm.status).toBe(200);
    const done = await owner.post(`/dashboard/payments/${payment.id}/refund`, {
      amount: '1000',
      idempotencyKey: 'audit-refund-1',
      confirmed: 'yes',
    });
    expect(done.status).toBe(303);
    expect((await read(payment.id)).refundedAmount).toBe(100_000);

    const event = await eventOf('payment.refund', payment.id);
    expect(event).toMatchObject({
      mode: 'test',
      actor: { kind: 'user', label: 'owner@port.dz' },
      details: { amount: 100_000 },
    });
    const page = await owner.get('/dashboard/audit');
    expect(page.status).toBe(200);
    expect(page.html).toContain(payment.id);
    expect(page.html).toContain('owner@port.dz');
    expect(page.html).toContain('data-action="payment.refund"');
  });

  it('an API key issued and revoked is recorded by its prefix, never the key', async () => {
    await owner.get('/dashboard/api-keys');
    const issued = await owner.post('/dashboard/api-keys', { label: 'Caisse' });
    const key = textOf(issued.html, 'new-key')!;
    const event = await eventOf('api_key.issue', `${key.slice(0, 12)}…`);
    expect(event.details).toMatchObject({ label: 'Caisse' });
    expect(JSON.stringify(await events('?limit=100'))).not.toContain(key);
  });

  it('a team change is recorded, of no mode: read with a live key, not with a test key', async () => {
    await owner.get('/dashboard/team');
    const invited = await owner.post('/dashboard/team/invite', {
      email: 'compta@port.dz',
      role: 'accountant',
    });
    expect(invited.status).toBe(200);
    const event = await eventOf('team.invite', 'compta@port.dz', shop.liveKey);
    expect(event).toMatchObject({ mode: null, details: { role: 'accountant' } });
    expect((await events('?action=team')).length).toBe(0);
    const page = await owner.get('/dashboard/audit?family=team');
    expect(page.html).toContain('compta@port.dz');
    expect(page.html).not.toContain('data-action="payment.refund"');
  });
});

describe('actions with the API', () => {
  it('a refund, a cancel and webhook settings changes are recorded as the key', async () => {
    const payment = await paid();
    const refunded = await stack.post(
      `/api/v1/payments/${payment.id}/refund`,
      { amount: 50_000 },
      { 'x-api-key': shop.testKey },
    );
    expect(refunded.status).toBe(200);
    const refund = await eventOf('payment.refund', payment.id);
    expect(refund).toMatchObject({
      mode: 'test',
      actor: { kind: 'api_key', id: shop.keyIds[0], label: `${shop.testKey.slice(0, 12)}…` },
      details: { amount: 50_000, refundStatus: expect.any(String) as string },
    });

    const created = await stack.post(
      '/api/v1/payments',
      {
        amount: 100_000,
        currency: 'DZD',
        reference: `AUDIT-CANCEL-${Date.now()}`,
        successUrl: 'https://shop.example/ok',
        failureUrl: 'https://shop.example/ko',
      },
      { 'x-api-key': shop.testKey },
    );
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    expect(
      (await stack.post(`/api/v1/payments/${id}/cancel`, {}, { 'x-api-key': shop.testKey })).status,
    ).toBe(200);
    await eventOf('payment.cancel', id);

    const put = await fetch(`${stack.gateway.url}/api/v1/webhooks/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-api-key': shop.testKey },
      body: JSON.stringify({ url: 'https://partner.example/hooks' }),
    });
    expect(put.status).toBe(200);
    const settings = await eventOf('webhook.settings_update', 'https://partner.example/hooks');
    expect(settings.details).toMatchObject({ changed: ['url'], secretCreated: true });
    const rotated = await stack.post(
      '/api/v1/webhooks/signing-secret/rotate',
      { graceHours: 2 },
      { 'x-api-key': shop.testKey },
    );
    expect(rotated.status).toBe(200);
    const rotation = await eventOf('webhook.secret_rotate', null);
    expect(rotation.details).toEqual({ graceHours: 2 });
    const everything = JSON.stringify(await events('?limit=100'));
    expect(everything).not.toContain('whsec_');

    // A refused action leaves no trace.
    const refused = await stack.post(
      `/api/v1/payments/${id}/refund`,
      {},
      { 'x-api-key': shop.testKey },
    );
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(
      (await events('?action=payment.refund&limit=100')).filter((e) => e.target === id),
    ).toEqual([]);
  });

  it('pages newest first with a cursor, filters by action, and refuses a bad query', async () => {
    const all = await events('?limit=100');
    expect(all.length).toBeGreaterThan(4);
    const sorted = [...all].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
    expect(all.map((e) => e.at)).toEqual(sorted.map((e) => e.at));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const { body } = await auditEvents(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const page = AuditEventsResponse.parse(body).data;
      seen.push(...page.events.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.id));
    expect((await events('?action=webhook')).every((e) => e.action.startsWith('webhook.'))).toBe(
      true,
    );
    for (const query of ['?action=nothing', '?limit=0', '?cursor=bm90LWFuLWlk', '?extra=1']) {
      const { status, body } = await auditEvents(query);
      expect({ query, status }).toEqual({ query, status: 400 });
      expect(body).toMatchObject({ errorCode: 'VALIDATION400_BAD_REQUEST' });
    }
    expect((await stack.get('/api/v1/audit-events')).status).toBe(401);
    // Another merchant reads none of these.
    const other = await stack.merchant('Ailleurs');
    expect(await events('', other.testKey)).toEqual([]);
  });
});
