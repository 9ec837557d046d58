import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { RegisteredPayment } from '@dzpay/contracts';
import { signWebhook, standardWebhookSignature } from '@dzpay/partner-sdk';
import { secretsKey } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dzpayClient, DzpayError } from '@dzpay/client';
import { keyOwnerCache } from '../services/gateway/src/adapters/key-owner-cache.ts';
import { buildGatewayApp } from '../services/gateway/src/app.ts';
import type { GatewayDeps } from '../services/gateway/src/deps.ts';
import { CARDS, payByHttp } from './support/payer.ts';
import { startStack, type Stack } from './support/stack.ts';

/**
 * A partner's webhook receiver that keeps every request as received (raw body and
 * headers): refunds and test events are types the SDK's receiver does not parse yet.
 */
interface Receiver {
  url: string;
  received: { path: string; headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Receiver['received'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks/dzpay`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether a received webhook is signed with `secret`: X-Signature, and webhook-signature. */
function signedWith(hit: Receiver['received'][number], secret: string) {
  const timestamp = Number(hit.headers['x-timestamp']);
  const xSignature = signWebhook(hit.body, timestamp, secret);
  const standard = standardWebhookSignature(
    String(hit.headers['webhook-id']),
    timestamp,
    hit.body,
    secret,
  );
  return {
    xSignature: hit.headers['x-signature'] === xSignature,
    standard: String(hit.headers['webhook-signature'] ?? '')
      .split(' ')
      .includes(standard),
  };
}

const SECRETS_KEY = randomBytes(32).toString('base64');
let stack: Stack;
let app: FastifyInstance;
let baseUrl: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  stack = await startStack(
    'webhook-settings',
    { RATE_LIMIT_PER_MINUTE: '100000', SECRETS_KEY },
    {
      withPayments: { SECRETS_KEY },
      withWebhooks: { SECRETS_KEY, SCHEDULER_INTERVAL_MS: '100' },
    },
  );
  // The stack's gateway app, built once more with the gateway's SECRETS_KEY among its
  // deps (service.ts does not pass it yet): same routes, same database, same NATS.
  const runtime = stack.gateway.runtime;
  const { accountsRepository } = await import('@dzpay/accounts');
  const accounts = accountsRepository(runtime.sql);
  const deps: GatewayDeps & { secretsKey: Buffer } = {
    logger: runtime.logger,
    keys: keyOwnerCache(accounts, { ttlMs: 0, maxEntries: 100 }),
    accounts,
    nats: runtime.nats,
    natsPrefix: runtime.config.NATS_PREFIX,
    redis: runtime.redis!,
    // A registry of its own (the stack's gateway registered its metrics in the other).
    registry: new (runtime.ops.registry.constructor as new () => GatewayDeps['registry'])(),
    rateLimitPerMinute: 100_000,
    serviceTimeoutMs: 5_000,
    paymentsTimeoutMs: 12_000,
    receiptsTimeoutMs: 5_000,
    publicBaseUrl: runtime.config.PUBLIC_BASE_URL,
    statusRateLimitPerMinute: 1_000,
    replicas: 1,
    trustProxyHops: 0,
    secretsKey: secretsKey(SECRETS_KEY),
  };
  app = await buildGatewayApp(deps);
  baseUrl = (await app.listen({ host: '127.0.0.1', port: 0 })).replace('0.0.0.0', '127.0.0.1');
}, 60_000);
afterAll(async () => {
  await app?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await stack?.stop();
});

async function merchantWithReceiver() {
  const merchant = await stack.merchant(`Webhooks ${randomUUID().slice(0, 8)}`, {
    walletId: 'W-1',
    feeDzd: 0,
  });
  const receiver = await startReceiver();
  receivers.push(receiver);
  const client = dzpayClient({ baseUrl, apiKey: merchant.testKey });
  return { merchant, receiver, client };
}

const put = (key: string, body: unknown) =>
  fetch(`${baseUrl}/api/v1/webhooks/settings`, {
    method: 'PUT',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function paidCheckout(key: string, amount = 150_000) {
  const response = await fetch(`${baseUrl}/api/v1/payments`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      amount,
      currency: 'DZD',
      reference: `BO-WH-${randomUUID().slice(0, 8)}`,
      successUrl: 'https://shop.example/ok',
      failureUrl: 'https://shop.example/ko',
    }),
  });
  expect(response.status).toBe(201);
  const payment = RegisteredPayment.parse(((await response.json()) as { data: unknown }).data);
  await payByHttp(payment.checkoutUrl, CARDS.approved);
  return payment;
}

const refund = (key: string, id: string, amount?: number) =>
  fetch(`${baseUrl}/api/v1/payments/${id}/refund`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(amount === undefined ? {} : { amount }),
  });

const typesOf = (receiver: Receiver) =>
  receiver.received.map((hit) => (JSON.parse(hit.body) as { type: string }).type);

describe('webhook settings', () => {
  it('answers the defaults, refuses bad input naming the field, and shows the secret only on the first PUT', async () => {
    const { merchant, receiver, client } = await merchantWithReceiver();
    expect(await client.getWebhookSettings()).toEqual({
      url: null,
      events: ['payment.success', 'payment.fail'],
    });

    for (const [body, field] of [
      [{ url: 'https://shop.example/hook?token=1' }, 'url'],
      [{ url: 'https://user:pw@shop.example/hook' }, 'url'],
      [{ url: 'ftp://shop.example/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ events: [] }, 'events'],
      [{ events: ['payment.created'] }, 'events'],
      [{ colour: 'blue' }, 'colour'],
    ] as const) {
      const refused = await put(merchant.testKey, body);
      expect(refused.status).toBe(400);
      const error = (await refused.json()) as {
        errorCode: string;
        details: { failures: { field: string; message: string }[] };
      };
      expect(error.errorCode).toBe('VALIDATION400_BAD_REQUEST');
      expect(error.details.failures[0]!.field.split('.')[0]).toBe(field);
      expect(error.details.failures[0]!.message).toContain(field);
    }

    const first = await client.setWebhookSettings({ url: receiver.url });
    expect(first.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(first).toMatchObject({ url: receiver.url, events: ['payment.success', 'payment.fail'] });
    const second = await client.setWebhookSettings({ events: ['payment.refunded'] });
    expect(second.signingSecret).toBeUndefined();
    const read = await client.getWebhookSettings();
    expect(read).toEqual({
      url: receiver.url,
      events: ['payment.refunded'],
      signingSecretCreatedAt: first.signingSecretCreatedAt,
    });
    expect(JSON.stringify(read)).not.toContain('whsec_');
    // The live mode is another endpoint.
    const live = dzpayClient({ baseUrl, apiKey: merchant.liveKey });
    expect((await live.getWebhookSettings()).url).toBeNull();
  });

  it('sends a signed webhook.test now; rotation keeps the old secret valid during the grace', async () => {
    const { receiver, client } = await merchantWithReceiver();
    await expect(client.sendTestWebhook()).rejects.toMatchObject({
      status: 409,
      body: { errorCode: 'WEBHOOK409_ENDPOINT_MISSING' },
    });
    await expect(client.rotateSigningSecret()).rejects.toMatchObject({ status: 409 });
    const { signingSecret: oldSecret } = await client.setWebhookSettings({ url: receiver.url });

    const test = await client.sendTestWebhook();
    expect(test).toMatchObject({ ok: true, statusCode: 200, url: receiver.url, error: null });
    expect(receiver.received).toHaveLength(1);
    const hit = receiver.received[0]!;
    expect(hit.path).toBe('/hooks/dzpay');
    expect(JSON.parse(hit.body)).toMatchObject({ id: test.eventId, type: 'webhook.test' });
    expect(hit.headers['x-event-type']).toBe('webhook.test');
    expect(hit.headers.authorization).toBeUndefined(); // no partner API, no API secret
    expect(signedWith(hit, oldSecret!)).toEqual({ xSignature: true, standard: true });

    await expect(client.rotateSigningSecret({ graceHours: 169 })).rejects.toMatchObject({
      status: 400,
    });
    const rotated = await client.rotateSigningSecret({ graceHours: 2 });
    expect(rotated.signingSecret).not.toBe(oldSecret);
    expect(Date.parse(rotated.previousSecretValidUntil!) - Date.now()).toBeGreaterThan(
      1.9 * 3_600_000,
    );
    expect(await client.getWebhookSettings()).toMatchObject({
      previousSecretValidUntil: rotated.previousSecretValidUntil,
    });
    const after = await client.sendTestWebhook();
    expect(after.ok).toBe(true);
    const rotatedHit = receiver.received.at(-1)!;
    expect(signedWith(rotatedHit, rotated.signingSecret)).toEqual({
      xSignature: true,
      standard: true,
    });
    // A receiver still holding the old secret verifies through webhook-signature.
    expect(signedWith(rotatedHit, oldSecret!).standard).toBe(true);
  });

  it('a new URL takes the next event at once', async () => {
    const { receiver, client } = await merchantWithReceiver();
    const other = await startReceiver();
    receivers.push(other);
    await client.setWebhookSettings({ url: receiver.url });
    await client.setWebhookSettings({ url: other.url });
    const test = await client.sendTestWebhook();
    expect(test.url).toBe(other.url);
    expect(other.received).toHaveLength(1);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('payment.refunded webhooks and the events list', () => {
  it('go only to an endpoint that asked, one per partial or full refund; every event is listed', async () => {
    const asked = await merchantWithReceiver();
    const notAsked = await merchantWithReceiver();
    await asked.client.setWebhookSettings({
      url: asked.receiver.url,
      events: ['payment.success', 'payment.refunded'],
    });
    await notAsked.client.setWebhookSettings({ url: notAsked.receiver.url });
    // The directory follows the gateway within a second; a test send waits for it.
    await asked.client.sendTestWebhook();
    await notAsked.client.sendTestWebhook();

    for (const { merchant } of [asked, notAsked]) {
      const payment = await paidCheckout(merchant.testKey);
      expect((await refund(merchant.testKey, payment.id, 50_000)).status).toBe(200);
      expect((await refund(merchant.testKey, payment.id)).status).toBe(200);
    }

    await expect
      .poll(() => typesOf(asked.receiver).filter((type) => type !== 'webhook.test'), {
        timeout: 15_000,
      })
      .toEqual(['payment.success', 'payment.refunded', 'payment.refunded']);
    const refunds = asked.receiver.received
      .map(
        (hit) =>
          JSON.parse(hit.body) as { id: string; type: string; data: Record<string, unknown> },
      )
      .filter((event) => event.type === 'payment.refunded');
    expect(refunds.map((event) => [event.data.amount, event.data.refundedAmount])).toEqual([
      [500, 500],
      [1000, 1500],
    ]);
    expect(new Set(refunds.map((event) => event.id)).size).toBe(2);

    await expect
      .poll(() => typesOf(notAsked.receiver).filter((type) => type !== 'webhook.test'), {
        timeout: 15_000,
      })
      .toEqual(['payment.success']);
    // The merchant that did not ask still sees its refunds, undelivered.
    await expect
      .poll(async () => (await notAsked.client.listEvents({ type: 'payment.refunded' })).events, {
        timeout: 10_000,
      })
      .toHaveLength(2);
    const unwanted = await notAsked.client.listEvents({ type: 'payment.refunded' });
    expect(unwanted.events.every((event) => event.delivery === null)).toBe(true);
    expect(notAsked.receiver.received.some((hit) => hit.body.includes('payment.refunded'))).toBe(
      false,
    );

    // Replaying an unwanted kind is refused until the endpoint takes it.
    const refusedReplay = await notAsked.client
      .replayEvent(unwanted.events[0]!.id)
      .catch((error: unknown) => error);
    expect(refusedReplay).toBeInstanceOf(DzpayError);
    expect((refusedReplay as DzpayError).status).toBe(409);

    // Pages of one, newest first, through every event; filters by payment.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await asked.client.listEvents({ limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.events.map((event) => event.type));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([
      'payment.refunded',
      'payment.refunded',
      'payment.success',
      'webhook.test',
    ]);
    const all = await asked.client.listEvents({ limit: 100 });
    const paymentId = all.events[0]!.paymentId!;
    const ofPayment = await asked.client.listEvents({ paymentId });
    expect(ofPayment.events).toHaveLength(3);
    expect(ofPayment.events[0]!.delivery).toMatchObject({
      status: 'success',
      attempts: 1,
      lastStatusCode: 200,
    });
    expect(ofPayment.events[0]!.data).toMatchObject({ amount: 1000, refundedAmount: 1500 });

    // A replay sends the same event id again.
    const first = ofPayment.events[2]!;
    const before = asked.receiver.received.length;
    const replayed = await asked.client.replayEvent(first.id);
    expect(replayed.id).toBe(first.id);
    await expect.poll(() => asked.receiver.received.length, { timeout: 10_000 }).toBe(before + 1);
    expect(asked.receiver.received.at(-1)!.headers['x-event-id']).toBe(first.id);

    // Another merchant's event is not found, nor is garbage.
    for (const id of [first.id, 'not-an-id', randomUUID()]) {
      const other = await notAsked.client.replayEvent(id).catch((error: unknown) => error);
      expect((other as DzpayError).status).toBe(404);
      expect((other as DzpayError).body).toMatchObject({ errorCode: 'WEBHOOK404_EVENT_NOT_FOUND' });
    }
    expect((await notAsked.client.listEvents({ paymentId })).events).toEqual([]);

    for (const query of [
      'limit=0',
      'limit=101',
      'type=payment.created',
      'paymentId=x',
      'cursor=zz',
    ]) {
      const bad = await fetch(`${baseUrl}/api/v1/events?${query}`, {
        headers: { 'x-api-key': asked.merchant.testKey },
      });
      expect(bad.status).toBe(400);
    }
  }, 60_000);
});
