import { get } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { HTTP_LIMITS } from '../src/http-limits.ts';
import { createMetricsRegistry, startOpsServer, type OpsServer } from '../src/ops-server.ts';

// The limits every HTTP server of dzpay holds a request to (docs/architecture.md, "HTTP
// limits"); each server's own test drops stalled requests over raw TCP.

let ops: OpsServer | undefined;
afterAll(() => ops?.close());

describe('HTTP limits', () => {
  it('are the documented ones, checked every second', () => {
    expect(HTTP_LIMITS).toEqual({
      headersMs: 10_000,
      requestMs: 30_000,
      keepAliveMs: 5_000,
      checkEveryMs: 1_000,
    });
  });

  it('hold the ops port too: its keep-alive is theirs, not Fastify’s 72 s', async () => {
    ops = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      registry: createMetricsRegistry('sample'),
      checks: {},
    });
    const keepAlive = await new Promise<unknown>((resolve, reject) => {
      get(`http://127.0.0.1:${ops!.port}/healthz`, (response) => {
        response.resume();
        resolve(response.headers['keep-alive']);
      }).on('error', reject);
    });
    expect(keepAlive).toBe(`timeout=${HTTP_LIMITS.keepAliveMs / 1000}`);
  });
});
