import { createLogger, HTTP_LIMITS } from '@dzpay/platform';
import {
  bodyThatStalls,
  expectDroppedAt,
  expectIdleClosedAt,
  headersThatStall,
  idleAfterAnswer,
  limitsOf,
  SHORT_LIMITS,
} from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSandboxApp } from '../src/app.ts';
import { startSandbox, type Sandbox } from '../src/service.ts';

// A client that stops sending holds its connection, and the sandbox's shutdown, for as
// long as the server lets it. The sandbox drops it at the limits of every dzpay server
// (docs/architecture.md, "HTTP limits"), tried here over raw TCP with short ones.

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox(
    { SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    { handleSignals: false, httpLimits: SHORT_LIMITS },
  );
});
afterAll(() => sandbox?.close());

describe('the sandbox drops a request that stops arriving', () => {
  it('at the header limit when its headers stall', async () => {
    expectDroppedAt(
      await headersThatStall(sandbox.url, '/payment/rest/register.do'),
      SHORT_LIMITS.headersMs,
      SHORT_LIMITS.checkEveryMs,
    );
  });

  it('at the request limit when its body stalls, not before', async () => {
    const silence = await bodyThatStalls(
      sandbox.url,
      '/payment/rest/register.do',
      'application/x-www-form-urlencoded',
    );
    expectDroppedAt(silence, SHORT_LIMITS.requestMs, SHORT_LIMITS.checkEveryMs);
    expect(silence.answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a keep-alive connection left idle', async () => {
    expectIdleClosedAt(await idleAfterAnswer(sandbox.url, '/healthz'), SHORT_LIMITS.keepAliveMs);
  });

  it('holds requests to the platform’s limits unless told otherwise', async () => {
    const app = buildSandboxApp({
      logger: createLogger('cardnet-sandbox', 'silent'),
      credentials: { userName: 'sandbox', password: 'sandbox' },
      confirmDelayMs: 0,
      publicUrl: () => 'http://127.0.0.1',
      clock: () => new Date(),
      stopping: new AbortController().signal,
      control: false,
      statusRefunds: true,
      timeZone: 'Africa/Algiers',
    });
    expect(limitsOf(app.server)).toEqual(HTTP_LIMITS);
    await app.close();
  });
});
