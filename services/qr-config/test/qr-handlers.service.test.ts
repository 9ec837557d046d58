import { Rpc } from '@dzpay/contracts';
import { requestRpc } from '@dzpay/platform';
import type { NatsConnection, AppError } from '@dzpay/platform';
import type { IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQrHandlersTestbed, type QrHandlersTestbed } from './handlers-testbed.ts';

let testbed: QrHandlersTestbed;
let infra: IsolatedInfra;
let nats: NatsConnection;
let now = new Date('2030-01-01T00:00:00.000Z');

const alice = { merchantId: '11111111-1111-4111-8111-111111111111', mode: 'test' as const };
const bob = { merchantId: '22222222-2222-4222-8222-222222222222', mode: 'test' as const };
const call = <D extends (typeof Rpc)[keyof typeof Rpc]>(
  definition: D,
  request: Parameters<typeof requestRpc<D>>[3],
) => requestRpc(nats, infra.natsPrefix, definition, request);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as AppError,
  );

beforeAll(async () => {
  testbed = await startQrHandlersTestbed('qr-handlers', () => now);
  ({ infra, nats } = testbed);
});
afterAll(() => testbed?.close());

describe('qr-config over NATS', () => {
  it('creates codes with a generated or chosen token, each token once', async () => {
    const generated = await call(Rpc.qrCodeCreate, alice);
    expect(generated.token).toMatch(/^QR[0-9A-Z]{20}$/);
    const chosen = await call(Rpc.qrCodeCreate, { ...alice, token: 'SHOP-1' });
    expect(chosen).toMatchObject({ token: 'SHOP-1', ...alice });
    expect(await failure(call(Rpc.qrCodeCreate, { ...bob, token: 'SHOP-1' }))).toMatchObject({
      code: 'QR_CODE409_ALREADY_EXISTS',
    });
  });

  it('sets, reads back with its state by the clock, and unsets a configuration', async () => {
    const { token } = await call(Rpc.qrCodeCreate, alice);
    expect(await call(Rpc.qrConfigGet, { token })).toMatchObject({ state: 'none', config: null });

    const expiresAt = '2030-01-01T00:10:00.000Z';
    const set = await call(Rpc.qrConfigSet, {
      ...alice,
      token,
      amounts: [100, 250],
      expiresAt,
      singleUse: true,
    });
    expect(set).toEqual({ token, version: 1 });
    expect(await call(Rpc.qrConfigGet, { token })).toMatchObject({
      ...alice,
      state: 'configured',
      config: { amounts: [100, 250], expiresAt, singleUse: true, version: 1 },
    });

    now = new Date('2030-01-01T00:10:00.000Z');
    expect((await call(Rpc.qrConfigGet, { token })).state).toBe('expired');

    expect(await call(Rpc.qrConfigUnset, { ...alice, token })).toEqual({ token, removed: true });
    expect(await call(Rpc.qrConfigUnset, { ...alice, token })).toEqual({ token, removed: false });
  });

  it("never touches another merchant's or the other mode's code", async () => {
    const { token } = await call(Rpc.qrCodeCreate, alice);
    const config = { token, amounts: [1], expiresAt: null, singleUse: false };
    for (const stranger of [bob, { ...alice, mode: 'live' as const }]) {
      expect(await failure(call(Rpc.qrConfigSet, { ...stranger, ...config }))).toMatchObject({
        code: 'QR_CODE404_NOT_FOUND',
        details: { token },
      });
      expect(await failure(call(Rpc.qrConfigUnset, { ...stranger, token }))).toMatchObject({
        code: 'QR_CODE404_NOT_FOUND',
      });
    }
    expect((await call(Rpc.qrConfigGet, { token })).state).toBe('none');
  });

  it('answers 404 for reading an unknown token', async () => {
    expect(await failure(call(Rpc.qrConfigGet, { token: 'NOPE' }))).toMatchObject({
      code: 'QR_CODE404_NOT_FOUND',
    });
  });
});
