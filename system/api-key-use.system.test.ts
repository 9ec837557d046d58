import { accountsRepository } from '@dzpay/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';

// "Last used" of an API key: written by the gateway that authenticated a request, off
// the request's path, into a table of its own (a write to api_keys would empty every
// gateway's key cache).

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('api-key-use', {}, { withQrConfig: true });
});
afterAll(() => stack?.stop());

describe('an API key used on the API', () => {
  it('is written down with the time of its use; a key never used has none', async () => {
    const merchant = await stack.merchant('Papeterie Oran');
    const accounts = accountsRepository(stack.gateway.runtime.sql);
    expect((await accounts.lastUsesOf(merchant.id)).size).toBe(0);

    const before = Date.now();
    const token = await stack.qrCode(merchant.id);
    const answer = await stack.post(
      '/set-qr-config',
      { token, amounts: [1500], singleUse: false },
      { 'x-api-key': merchant.testKey },
    );
    expect(answer.status).toBe(200);

    const [testKeyId, liveKeyId] = merchant.keyIds;
    await expect
      .poll(async () => (await accounts.lastUsesOf(merchant.id)).has(testKeyId!), {
        timeout: 5_000,
      })
      .toBe(true);
    const uses = await accounts.lastUsesOf(merchant.id);
    expect(uses.get(testKeyId!)!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(uses.get(testKeyId!)!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(uses.has(liveKeyId!)).toBe(false);
  });

  it('shows under its own merchant only, and a made-up key writes nothing', async () => {
    const merchant = await stack.merchant('Droguerie Annaba');
    const other = await stack.merchant('Épicerie Béjaïa');
    const accounts = accountsRepository(stack.gateway.runtime.sql);
    const madeUp = `pk_test_${'Q'.repeat(43)}`;
    expect((await stack.post('/set-qr-config', {}, { 'x-api-key': madeUp })).status).toBe(401);
    await stack.post('/set-qr-config', {}, { 'x-api-key': other.liveKey });
    await expect
      .poll(async () => (await accounts.lastUsesOf(other.id)).size, { timeout: 5_000 })
      .toBe(1);
    expect([...(await accounts.lastUsesOf(other.id)).keys()]).toEqual([other.keyIds[1]]);
    expect((await accounts.lastUsesOf(merchant.id)).size).toBe(0);
  });
});
