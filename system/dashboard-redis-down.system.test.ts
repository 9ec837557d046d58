import { startRedisServer, type LocalRedisServer } from '@dzpay/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';
import { createDashboardUser, DashboardAgent, SESSION_COOKIE } from './support/dashboard-agent.ts';

// Without Redis the dashboard can neither count failed sign-ins nor read sessions: it
// says so (503) instead of letting guesses through unlimited. The dashboard uses a
// redis-server of this file's own, killed and restarted here.

const password = 'correct horse battery staple';
let redisServer: LocalRedisServer;
let stack: Stack;

function redisReady(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

beforeAll(async () => {
  redisServer = await startRedisServer();
  stack = await startStack(
    'dashboard-redis-down',
    { REDIS_URL: redisServer.url },
    { withQrConfig: false, withDashboard: true },
  );
  await redisReady(stack.dashboard!.runtime.redis!);
  const merchant = await stack.merchant('Quincaillerie Blida');
  await createDashboardUser(stack, merchant.id, 'down@blida.example', password);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await redisServer?.stop();
});

describe('the dashboard without Redis', () => {
  it('refuses sign-in and pages with 503, and works again once Redis is back', async () => {
    const signedIn = new DashboardAgent(stack.dashboard!.url, { 'accept-language': 'en' });
    expect((await signedIn.login('down@blida.example', password)).status).toBe(303);

    await redisServer.kill();
    const browser = new DashboardAgent(stack.dashboard!.url, { 'accept-language': 'en' });
    const form = await browser.get('/dashboard/login');
    expect(form.status).toBe(200);
    const refused = await browser.post('/dashboard/login', {
      email: 'down@blida.example',
      password,
    });
    expect(refused.status).toBe(503);
    expect(refused.html).toContain('Sign-in is unavailable for a moment.');
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
    const page = await signedIn.get('/dashboard/team');
    expect(page.status).toBe(503);
    expect(page.html).toContain('The service is unavailable for a moment.');

    await redisServer.restart();
    await redisReady(stack.dashboard!.runtime.redis!);
    // Sessions lived in the killed Redis: the user signs in again.
    expect((await signedIn.get('/dashboard/team')).status).toBe(303);
    expect((await browser.login('down@blida.example', password)).status).toBe(303);
    expect((await browser.get('/dashboard/team')).status).toBe(200);
  });
});
