import { HTTP_LIMITS, httpLimitOptions } from '@dzpay/platform';
import {
  bodyThatStalls,
  expectDroppedAt,
  expectIdleClosedAt,
  headersThatStall,
  idleAfterAnswer,
  limitsOf,
  SHORT_LIMITS,
} from '@dzpay/testkit';
import { startFrontDoor, type FrontDoor } from '@dzpay/testkit/front-door';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';

// `pnpm start`'s front door, before the gateway and the dashboard as in scripts/start.ts:
// a client that stops sending is dropped at the door, at its limits (docs/architecture.md,
// "HTTP limits"), tried here over raw TCP with short ones. The services behind hold
// theirs (30 s), far past these.

let stack: Stack;
let door: FrontDoor;

const doorBefore = (services: Stack, limits: ReturnType<typeof httpLimitOptions>) =>
  startFrontDoor({
    host: '127.0.0.1',
    port: 0,
    gatewayUrl: services.gateway.url,
    dashboardUrl: services.dashboard!.url,
    limits,
  });

beforeAll(async () => {
  stack = await startStack('front-door-limits', {}, { withQrConfig: false, withDashboard: true });
  door = await doorBefore(stack, httpLimitOptions(SHORT_LIMITS));
});
afterAll(async () => {
  await door?.close();
  await stack?.stop();
});

describe('the front door drops a request that stops arriving', () => {
  it('at the header limit when its headers stall', async () => {
    expectDroppedAt(
      await headersThatStall(door.url, '/dashboard/login'),
      SHORT_LIMITS.headersMs,
      SHORT_LIMITS.checkEveryMs,
    );
  });

  it('at the request limit when its body stalls, for the gateway and the dashboard alike', async () => {
    const [gateway, dashboard] = await Promise.all([
      bodyThatStalls(door.url, '/checkout/some-token/pay', 'application/x-www-form-urlencoded'),
      bodyThatStalls(door.url, '/dashboard/login', 'application/x-www-form-urlencoded'),
    ]);
    for (const silence of [gateway, dashboard]) {
      expectDroppedAt(silence, SHORT_LIMITS.requestMs, SHORT_LIMITS.checkEveryMs);
      expect(silence.answer).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it('closes a keep-alive connection left idle', async () => {
    expectIdleClosedAt(await idleAfterAnswer(door.url, '/favicon.ico'), SHORT_LIMITS.keepAliveMs);
  });

  it('holds requests to what it is given: in `pnpm start`, the platform’s limits', async () => {
    const another = await doorBefore(stack, httpLimitOptions());
    try {
      expect(limitsOf(another.server)).toEqual(HTTP_LIMITS);
    } finally {
      await another.close();
    }
  });
});
