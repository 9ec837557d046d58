import rateLimit from '@fastify/rate-limit';
import { connectRedis, type Redis } from '@dzpay/platform';
import { startRedisServer, type LocalRedisServer } from '@dzpay/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { degradableStore } from '../src/adapters/rate-limit-store.ts';

// Two "replicas" of a gateway-like app (the plugin and the store as app.ts registers
// them) over one redis-server of this file's own, which the test kills and restarts.

const LIMIT = 5;
const REPLICAS = 2;

let server: LocalRedisServer;
const clients: Redis[] = [];
const apps: FastifyInstance[] = [];

async function replica(): Promise<FastifyInstance> {
  const redis = connectRedis(server.url, 'store-test:');
  clients.push(redis);
  const app = Fastify();
  await app.register(rateLimit, {
    global: true,
    max: LIMIT,
    timeWindow: 60_000,
    keyGenerator: (request) => String(request.headers['x-caller']),
    store: degradableStore({ redis, replicas: REPLICAS, nameSpace: 'rate:', logger: app.log }),
  });
  app.get('/', () => 'ok');
  app.get('/own', { config: { rateLimit: { max: 2, timeWindow: 60_000 } } }, () => 'ok');
  apps.push(app);
  await ready(redis);
  return app;
}

function ready(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

async function hits(app: FastifyInstance, caller: string, count: number, url = '/') {
  const answers: { status: number; remaining: string | undefined }[] = [];
  for (let i = 0; i < count; i++) {
    const response = await app.inject({ url, headers: { 'x-caller': caller } });
    answers.push({
      status: response.statusCode,
      remaining: response.headers['x-ratelimit-remaining'] as string | undefined,
    });
  }
  return answers;
}

const statuses = (answers: { status: number }[]) => answers.map((answer) => answer.status);

let a: FastifyInstance;
let b: FastifyInstance;
beforeAll(async () => {
  server = await startRedisServer();
  a = await replica();
  b = await replica();
});
afterAll(async () => {
  for (const app of apps) await app.close();
  for (const client of clients) await client.quit();
  await server?.stop();
});

describe('degradableStore', () => {
  it('counts in Redis for every replica while Redis answers', async () => {
    const first = await hits(a, 'up', 3);
    const second = await hits(b, 'up', 3);
    expect(statuses([...first, ...second])).toEqual([200, 200, 200, 200, 200, 429]);
    expect(second.map((answer) => answer.remaining)).toEqual(['1', '0', '0']);
  });

  it('without Redis, each replica allows its share: the limit ÷ replicas, rounded up', async () => {
    await server.kill();
    // ceil(5 / 2) = 3 on each replica; the remaining header is this replica's.
    const onA = await hits(a, 'down', 4);
    expect(onA).toEqual([
      { status: 200, remaining: '2' },
      { status: 200, remaining: '1' },
      { status: 200, remaining: '0' },
      { status: 429, remaining: '0' },
    ]);
    expect(statuses(await hits(b, 'down', 4))).toEqual([200, 200, 200, 429]);
    // A route's own limit is shared the same way: ceil(2 / 2) = 1.
    expect(statuses(await hits(a, 'down', 2, '/own'))).toEqual([200, 429]);
  });

  it('counts in Redis again, shared, once Redis is back', async () => {
    await server.restart();
    await Promise.all(clients.map(ready));
    const first = await hits(a, 'back', 2);
    const second = await hits(b, 'back', 4);
    expect(statuses([...first, ...second])).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
