import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { RateLimitError } from '@dzpay/contracts';
import { partnerSecretOwner, sealSecret } from '@dzpay/platform';
import { startRedisServer, type LocalRedisServer } from '@dzpay/testkit';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsRepository } from '@dzpay/accounts';
import { startGateway, type Gateway } from '../services/gateway/src/service.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

// Redis holds only what can be rebuilt, so losing it must cost
// neither seconds nor limits. The gateway here counts in a redis-server of this file's
// own, which the tests kill and restart (the machine's shared Redis is never touched).
// How fast the answers come is the benchmark's business (docs/benchmarks.md); nothing
// here is timed.

const PAGE_LIMIT = 5;
const STATUS_LIMIT = 60;
const SECRETS_KEY = randomBytes(32);

let redisServer: LocalRedisServer;
let partner: PartnerServer;
let stack: Stack;
const extraGateways: Gateway[] = [];

beforeAll(async () => {
  redisServer = await startRedisServer();
  partner = await startPartnerServer();
  // The gateway (rate limits) and payments (the reference lock's gate) both use it.
  stack = await startStack(
    'redis-down',
    {
      REDIS_URL: redisServer.url,
      RATE_LIMIT_PER_MINUTE: String(PAGE_LIMIT),
      SECRETS_KEY: SECRETS_KEY.toString('base64'),
    },
    { withStatus: true, withPayments: { REDIS_URL: redisServer.url } },
  );
  await Promise.all([stack.gateway.runtime.redis!, stack.payments!.redis!].map(redisReady));
});
afterAll(async () => {
  for (const gateway of extraGateways) await gateway.runtime.stop();
  await stack?.stop();
  await partner?.close();
  await redisServer?.stop();
});

/** Resolves once a service's Redis client is connected (now, if it is). */
function redisReady(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

/** `count` status queries by one key against the given gateways in turn: their statuses. */
async function statusQueries(urls: string[], key: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const url = urls[i % urls.length]!;
    const response = await fetch(`${url}/partner/payments/v1/REF-${i}/status`, {
      headers: { 'x-api-key': key },
    });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

/**
 * A payer page asked from one loopback address (127.0.0.x): each address has its own
 * per-address budget, as different payers would.
 */
function fromAddress(
  localAddress: string,
  path: string,
  method = 'GET',
): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  const url = new URL(path, stack.gateway.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, localAddress },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            retryAfter: response.headers['retry-after'],
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** What the spec says a 429 of the status endpoint looks like: the bare shape. */
async function expectSpecRateLimit(response: Response): Promise<void> {
  expect(response.status).toBe(429);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  const payload = (await response.json()) as Record<string, unknown>;
  expect(Object.keys(payload).sort()).toEqual(['message', 'statusCode']);
  expect(RateLimitError.parse(payload).statusCode).toBe(429);
}

describe('with Redis stopped, the limits hold in each gateway replica', () => {
  it('answers 60 status queries of a key in a minute, and refuses the 61st with 429', async () => {
    const merchant = await stack.merchant('Status merchant');
    await redisServer.kill();

    const statuses = await statusQueries([stack.gateway.url], merchant.testKey, STATUS_LIMIT);
    expect(statuses).toEqual(Array.from({ length: STATUS_LIMIT }, () => 200));
    await expectSpecRateLimit(
      await stack.get('/partner/payments/v1/REF-61/status', { 'x-api-key': merchant.testKey }),
    );
    // Another key has its own count, as with Redis.
    expect(await statusQueries([stack.gateway.url], merchant.liveKey, 1)).toEqual([200]);
  });

  it('still limits the anonymous pages per address', async () => {
    expect(redisServer.running).toBe(false);
    const answers = [];
    for (let i = 0; i < PAGE_LIMIT + 2; i++) {
      answers.push(await fromAddress('127.0.0.2', `/qr/NO-SUCH-CODE-${i}`));
    }
    // Answered (the page saying there is nothing to pay)...
    for (const answer of answers.slice(0, PAGE_LIMIT)) {
      expect([answer.status, answer.retryAfter]).toEqual([404, undefined]);
    }
    // ...then refused by the limiter before the page is looked up: a 429 page.
    for (const answer of answers.slice(PAGE_LIMIT)) {
      expect(answer.status).toBe(429);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    // Another payer's address has a budget of its own.
    expect((await fromAddress('127.0.0.3', '/qr/NO-SUCH-CODE')).status).toBe(404);
  });

  it('starts a product payment, and Postgres still refuses a second payer the locked reference', async () => {
    expect(redisServer.running).toBe(false);
    const merchant = await stack.merchant('Product merchant');
    await accountsRepository(stack.gateway.runtime.sql).setPartnerEndpoint(
      merchant.id,
      'test',
      partner.url,
      sealSecret('partner-secret', SECRETS_KEY, partnerSecretOwner(merchant.id, 'test')),
    );
    const page = `/pay/${merchant.id}/BOOK-REDIS-DOWN?mode=test&lang=fr`;
    const first = await fromAddress('127.0.0.4', page, 'POST');
    expect(first.status).toBe(303);
    const second = await fromAddress('127.0.0.5', page, 'POST');
    expect(second.status).toBe(409);
    const sql = postgres(stack.infra.databaseUrl, { max: 1 });
    const rows = await sql<{ status: string }[]>`
      select status from payments.payments where reference = 'BOOK-REDIS-DOWN'`;
    await sql.end();
    expect(rows.map((row) => row.status)).toEqual(['pending']);
  });

  it('answers set-qr-config', async () => {
    expect(redisServer.running).toBe(false);
    const merchant = await stack.merchant('QR merchant');
    const token = await stack.qrCode(merchant.id);
    const response = await stack.post(
      '/set-qr-config',
      { token, amounts: [50], singleUse: false },
      { 'x-api-key': merchant.testKey },
    );
    expect(response.status).toBe(200);
    expect((await stack.readQr(token)).config?.amounts).toEqual([5_000]);
  });
});

describe('with Redis back, counting is shared again', () => {
  it('two gateways over the same Redis share one count', async () => {
    await redisServer.restart();
    await redisReady(stack.gateway.runtime.redis!);
    const second = await startGateway(
      {
        ...stack.infra.env,
        REDIS_URL: redisServer.url,
        RATE_LIMIT_PER_MINUTE: String(PAGE_LIMIT),
        HTTP_PORT: '0',
        HTTP_HOST: '127.0.0.1',
      },
      { handleSignals: false },
    );
    extraGateways.push(second);
    await redisReady(second.runtime.redis!);

    const merchant = await stack.merchant('Shared merchant');
    const urls = [stack.gateway.url, second.url];
    const statuses = await statusQueries(urls, merchant.testKey, STATUS_LIMIT);
    expect(statuses).toEqual(Array.from({ length: STATUS_LIMIT }, () => 200));
    // Thirty on each gateway: the 61st is refused only because they count together.
    for (const url of urls) {
      const response = await fetch(`${url}/partner/payments/v1/REF-61/status`, {
        headers: { 'x-api-key': merchant.testKey },
      });
      await expectSpecRateLimit(response);
    }

    // The count is in our Redis, under the run's prefix.
    const redis = new Redis(redisServer.url);
    const keys = await redis.keys(`${stack.infra.redisPrefix}rate:GET/partner/*`);
    await redis.quit();
    expect(keys.length).toBeGreaterThanOrEqual(1);
  });
});
