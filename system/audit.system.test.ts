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

describe('an action sent again is recorded once', () => {
  const key = () => ({ 'x-api-key': shop.testKey });
  /** A checkout payment registered and not paid: one to cancel. */
  async function unpaid(prefix: string): Promise<string> {
    const created = await stack.post(
      '/api/v1/payments',
      {
        amount: 100_000,
        currency: 'DZD',
        reference: `${prefix}-${Date.now()}`,
        successUrl: 'https://shop.example/ok',
        failureUrl: 'https://shop.example/ko',
      },
      key(),
    );
    return ((await created.json()) as { data: { id: string } }).data.id;
  }
  /** The action's events on the target, once every earlier write has landed. */
  async function countOf(action: string, target: string): Promise<number> {
    // A later action's event written means the answered-again requests' hooks have run.
    const rotations = async () => (await events('?action=webhook.secret_rotate&limit=100')).length;
    const before = await rotations();
    const sentinel = await stack.post('/api/v1/webhooks/signing-secret/rotate', {}, key());
    expect(sentinel.status).toBe(200);
    await expect.poll(rotations, { timeout: 5_000 }).toBeGreaterThan(before);
    const all = await events(`?action=${action}&limit=100`);
    return all.filter((event) => event.target === target).length;
  }

  it('with the API: a refund, a cancel and a link made with their Idempotency-Key, a link ended and settings saved again', async () => {
    const payment = await paid();
    const refunds = [];
    for (let i = 0; i < 3; i++) {
      refunds.push(
        await stack.post(
          `/api/v1/payments/${payment.id}/refund`,
          { amount: 10_000 },
          {
            ...key(),
            'idempotency-key': `again-refund-${payment.id}`,
          },
        ),
      );
    }
    expect(refunds.map((r) => [r.status, r.headers.get('idempotent-replayed')])).toEqual([
      [200, null],
      [200, 'true'],
      [200, 'true'],
    ]);
    expect((await read(payment.id)).refundedAmount).toBe(10_000);
    await eventOf('payment.refund', payment.id);

    const id = await unpaid('AGAIN-CANCEL');
    const cancels = [];
    for (const idempotencyKey of ['again-cancel', 'again-cancel', null]) {
      const headers = idempotencyKey ? { ...key(), 'idempotency-key': idempotencyKey } : key();
      cancels.push(await stack.post(`/api/v1/payments/${id}/cancel`, {}, headers));
    }
    expect(cancels.map((r) => [r.status, r.headers.get('idempotent-replayed')])).toEqual([
      [200, null],
      [200, 'true'],
      // No key: a payment already cancelled is answered again, nothing done, nothing replayed.
      [200, null],
    ]);

    const links = [];
    for (let i = 0; i < 3; i++) {
      links.push(
        await stack.post(
          '/api/v1/payment-links',
          { label: 'Again', amount: 20_000 },
          {
            ...key(),
            'idempotency-key': `again-link-${id}`,
          },
        ),
      );
    }
    expect(links.map((r) => [r.status, r.headers.get('idempotent-replayed')])).toEqual([
      [201, null],
      [201, 'true'],
      [201, 'true'],
    ]);
    const linkIds = await Promise.all(
      links.map(async (r) => ((await r.json()) as { data: { id: string } }).data.id),
    );
    expect(new Set(linkIds).size).toBe(1);
    const linkId = linkIds[0]!;
    for (let i = 0; i < 3; i++) {
      const ended = await stack.post(`/api/v1/payment-links/${linkId}/deactivate`, {}, key());
      expect(ended.status).toBe(200);
    }

    const url = `https://again.example/hooks/${id}`;
    for (let i = 0; i < 3; i++) {
      const put = await fetch(`${stack.gateway.url}/api/v1/webhooks/settings`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...key() },
        body: JSON.stringify({ url, events: ['payment.success', 'payment.fail'] }),
      });
      expect(put.status).toBe(200);
    }

    expect(await countOf('payment.refund', payment.id)).toBe(1);
    expect(await countOf('payment.cancel', id)).toBe(1);
    expect(await countOf('payment_link.create', linkId)).toBe(1);
    expect(await countOf('payment_link.deactivate', linkId)).toBe(1);
    expect(await countOf('webhook.settings_update', url)).toBe(1);
  });

  it('in the dashboard: a refund form, a cancel, a link ended and settings saved, each sent three times', async () => {
    const payment = await paid();
    for (let i = 0; i < 3; i++) {
      await owner.get(`/dashboard/payments/${payment.id}`);
      const done = await owner.post(`/dashboard/payments/${payment.id}/refund`, {
        amount: '100',
        idempotencyKey: `again-form-${payment.id}`,
        confirmed: 'yes',
      });
      expect(done.status).toBe(303);
    }
    expect((await read(payment.id)).refundedAmount).toBe(10_000);

    const id = await unpaid('AGAIN-DASH');
    for (let i = 0; i < 3; i++) {
      await owner.get(`/dashboard/payments/${id}`);
      expect((await owner.post(`/dashboard/payments/${id}/cancel`, {})).status).toBe(303);
    }

    const link = await stack.post(
      '/api/v1/payment-links',
      { label: 'Dash', amount: 20_000 },
      key(),
    );
    const linkId = ((await link.json()) as { data: { id: string } }).data.id;
    for (let i = 0; i < 3; i++) {
      await owner.get(`/dashboard/payment-links/${linkId}/deactivate`);
      expect((await owner.post(`/dashboard/payment-links/${linkId}/deactivate`, {})).status).toBe(
        303,
      );
    }

    const url = `https://again.example/dashboard/${id}`;
    for (let i = 0; i < 3; i++) {
      await owner.get('/dashboard/webhooks');
      const saved = await owner.post('/dashboard/webhooks', { url, events: 'payment.success' });
      expect(saved.status).toBeLessThan(400);
    }

    expect(await countOf('payment.refund', payment.id)).toBe(1);
    expect(await countOf('payment.cancel', id)).toBe(1);
    expect(await countOf('payment_link.deactivate', linkId)).toBe(1);
    expect(await countOf('webhook.settings_update', url)).toBe(1);
  });
});
