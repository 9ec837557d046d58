import { Rpc } from '@dzpay/contracts';
import { freePort, isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, isDatabaseUnavailable } from '../src/db.ts';
import { AppError } from '../src/errors.ts';
import { createLogger } from '../src/logger.ts';
import { connectNats, type NatsConnection } from '../src/nats.ts';
import { requestRpc, serveRpc } from '../src/rpc.ts';

let infra: IsolatedInfra;
let server: NatsConnection;
let client: NatsConnection;
const logger = createLogger('rpc-test', 'silent');
const scope = { merchantId: '8d5e2f0a-9c1b-4a3e-8f7d-2b6c1a0e9d4f', mode: 'test' as const };

beforeAll(async () => {
  infra = await isolatedInfra('platform-rpc');
  server = await connectNats(infra.natsUrl, 'rpc-server');
  client = await connectNats(infra.natsUrl, 'rpc-client');
});
afterAll(async () => {
  await server?.close();
  await client?.close();
  await infra?.cleanup();
});

describe('request/reply over NATS', () => {
  it('carries a validated request and reply', async () => {
    const rpc = await serveRpc(
      server,
      infra.natsPrefix,
      Rpc.qrConfigUnset,
      (req) =>
        Promise.resolve({
          token: req.token,
          removed: true,
        }),
      logger,
    );
    const reply = await requestRpc(client, infra.natsPrefix, Rpc.qrConfigUnset, {
      ...scope,
      token: 'QR1',
    });
    expect(reply).toEqual({ token: 'QR1', removed: true });
    await rpc.stop();
  });

  it('sends an AppError across the wire as its code, message and details', async () => {
    const rpc = await serveRpc(
      server,
      infra.natsPrefix,
      Rpc.qrConfigUnset,
      (req) =>
        Promise.reject(
          new AppError('QR_CODE404_NOT_FOUND', 'QR code not found', {
            details: { token: req.token },
          }),
        ),
      logger,
    );
    const failure = await requestRpc(client, infra.natsPrefix, Rpc.qrConfigUnset, {
      ...scope,
      token: 'QR9',
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'QR_CODE404_NOT_FOUND', details: { token: 'QR9' } });
    await rpc.stop();
  });

  it('answers an unexpected error as INTERNAL500_ERROR without its text', async () => {
    const rpc = await serveRpc(
      server,
      infra.natsPrefix,
      Rpc.qrConfigUnset,
      () => Promise.reject(new Error('password=hunter2 leaked in a driver message')),
      logger,
    );
    const failure = await requestRpc(client, infra.natsPrefix, Rpc.qrConfigUnset, {
      ...scope,
      token: 'QR1',
    }).catch((error: unknown) => error as AppError);
    expect(failure).toMatchObject({ code: 'INTERNAL500_ERROR', message: 'internal error' });
    await rpc.stop();
  });

  it('refuses to send a request that breaks its schema', async () => {
    await expect(
      requestRpc(client, infra.natsPrefix, Rpc.qrConfigUnset, { ...scope, token: '' }),
    ).rejects.toThrow();
  });

  // A read asks again three times, 600 ms of pauses in all, in case a replica subscribes.
  it('turns no responder into SERVICE503_UNAVAILABLE within the pauses of its tries', async () => {
    const started = Date.now();
    const failure = await requestRpc(client, infra.natsPrefix, Rpc.qrConfigGet, {
      token: 'QR1',
    }).catch((error: unknown) => error as AppError);
    expect(failure).toMatchObject({
      code: 'SERVICE503_UNAVAILABLE',
      details: { reason: 'no-responders' },
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('turns a silent responder into SERVICE503_UNAVAILABLE after the timeout', async () => {
    // Answers long after the caller gave up.
    const late = () =>
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('late')), 500));
    const rpc = await serveRpc(server, infra.natsPrefix, Rpc.qrConfigGet, late, logger);
    const failure = await requestRpc(
      client,
      infra.natsPrefix,
      Rpc.qrConfigGet,
      { token: 'QR1' },
      { timeoutMs: 200 },
    ).catch((error: unknown) => error as AppError);
    expect(failure).toMatchObject({
      code: 'SERVICE503_UNAVAILABLE',
      details: { reason: 'timeout' },
    });
    await rpc.stop();
  });

  it('stop() waits for requests already taken and answers them', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const rpc = await serveRpc(
      server,
      infra.natsPrefix,
      Rpc.qrConfigUnset,
      async (req) => {
        await gate;
        return { token: req.token, removed: false };
      },
      logger,
    );
    const pending = requestRpc(client, infra.natsPrefix, Rpc.qrConfigUnset, {
      ...scope,
      token: 'QR5',
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rpc.inFlight()).toBe(1);

    let stopped = false;
    const stopping = rpc.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await pending).toEqual({ token: 'QR5', removed: false });
  });

  it('answers a database outage in the handler as SERVICE503_UNAVAILABLE', async () => {
    const unreachable = connectPostgres(
      `postgres://postgres@127.0.0.1:${await freePort()}/x`,
      'qr',
      1,
    );
    const rpc = await serveRpc(
      server,
      infra.natsPrefix,
      Rpc.qrConfigGet,
      async () => {
        await unreachable`select 1`;
        throw new Error('unreachable');
      },
      logger,
    );
    const failure = await requestRpc(
      client,
      infra.natsPrefix,
      Rpc.qrConfigGet,
      { token: 'QR1' },
      { timeoutMs: 8_000 },
    ).catch((error: unknown) => error as AppError);
    expect(failure).toMatchObject({ code: 'SERVICE503_UNAVAILABLE' });
    expect(isDatabaseUnavailable(new Error('syntax error'))).toBe(false);
    await rpc.stop();
    await unreachable.end();
  });
});
