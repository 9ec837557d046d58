import { HTTP_LIMITS } from '@dzpay/platform';
import {
  bodyThatStalls,
  expectDroppedAt,
  expectIdleClosedAt,
  headersThatStall,
  idleAfterAnswer,
  isolatedInfra,
  limitsOf,
  SHORT_LIMITS,
  type IsolatedInfra,
} from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../src/service.ts';

// A client that stops sending holds its connection, and a graceful shutdown, for as long
// as the server lets it. The gateway drops it at its limits (docs/architecture.md, "HTTP
// limits"), tried here over raw TCP with short ones.

let infra: IsolatedInfra;
let gateway: Gateway;
const env = () => ({ ...infra.env, HTTP_PORT: '0', HTTP_HOST: '127.0.0.1' });

beforeAll(async () => {
  infra = await isolatedInfra('gateway-http-limits');
  gateway = await startGateway(env(), { handleSignals: false, httpLimits: SHORT_LIMITS });
});
afterAll(async () => {
  await gateway?.runtime.stop();
  await infra?.cleanup();
});

describe('the gateway drops a request that stops arriving', () => {
  it('at the header limit when its headers stall', async () => {
    expectDroppedAt(
      await headersThatStall(gateway.url, '/api/v1/payments'),
      SHORT_LIMITS.headersMs,
      SHORT_LIMITS.checkEveryMs,
    );
  });

  it('at the request limit when its body stalls, not before', async () => {
    const silence = await bodyThatStalls(
      gateway.url,
      '/checkout/some-token/pay',
      'application/x-www-form-urlencoded',
    );
    expectDroppedAt(silence, SHORT_LIMITS.requestMs, SHORT_LIMITS.checkEveryMs);
    // Its own envelope, as for any request it cannot read.
    expect(silence.answer).toContain('"request was not received in time"');
  });

  it('closes a keep-alive connection left idle', async () => {
    expectIdleClosedAt(
      await idleAfterAnswer(gateway.url, '/favicon.ico'),
      SHORT_LIMITS.keepAliveMs,
    );
  });

  it('holds requests to the platform’s limits unless told otherwise', async () => {
    const another = await startGateway(env(), { handleSignals: false });
    try {
      expect(limitsOf(another.app.server)).toEqual(HTTP_LIMITS);
    } finally {
      await another.runtime.stop();
    }
  });
});
