import { randomBytes } from 'node:crypto';
import { Rpc, type StatusRecord } from '@dzpay/contracts';
import { requestRpc, partnerSecretOwner, sealSecret } from '@dzpay/platform';
import { spawnService, type ServiceProcess } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsRepository } from '@dzpay/accounts';
import { entryOf } from '@dzpay/stack';
import { payProductReference } from './support/partner-merchant.ts';
import { CARDS } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

const STATUS_MAIN = entryOf('status');
const SECRETS_KEY = randomBytes(32);
let stack: Stack;
let partner: PartnerServer;
let status: ServiceProcess | undefined;
let merchantId: string;

beforeAll(async () => {
  partner = await startPartnerServer();
  stack = await startStack(
    'status-restart',
    { SECRETS_KEY: SECRETS_KEY.toString('base64') },
    { withPayments: true },
  );
  merchantId = (await stack.merchant('Restart shop', { walletId: 'W-R' })).id;
  await accountsRepository(stack.gateway.runtime.sql).setPartnerEndpoint(
    merchantId,
    'test',
    partner.url,
    sealSecret('secret', SECRETS_KEY, partnerSecretOwner(merchantId, 'test')),
  );
  status = await spawnService(STATUS_MAIN, stack.infra.env);
});
afterAll(async () => {
  status?.kill('SIGKILL');
  await stack?.stop();
  await partner?.close();
});

const ask = (reference: string): Promise<StatusRecord> =>
  requestRpc(stack.gateway.runtime.nats, stack.infra.natsPrefix, Rpc.statusReferenceGet, {
    merchantId,
    mode: 'test',
    reference,
  });

function pay(reference: string, card?: { pan: string }) {
  return payProductReference(stack, merchantId, reference, card);
}

describe('the status projection killed and restarted', () => {
  it('answers the same after SIGKILL and catches up with what happened while it was down', async () => {
    await pay('BOOK-K1', CARDS.approved);
    await pay('BOOK-K2', CARDS.insufficientFunds);
    await pay('BOOK-K3');
    const references = ['BOOK-K1', 'BOOK-K2', 'BOOK-K3'];
    await expect
      .poll(async () => (await Promise.all(references.map(ask))).map((r) => r.stage), {
        timeout: 5_000,
      })
      .toEqual(['paid', 'released', 'locked']);
    const before = await Promise.all(references.map(ask));

    status!.kill('SIGKILL');
    await status!.exited();
    await pay('BOOK-K4', CARDS.approved); // while the projection is down
    status = await spawnService(STATUS_MAIN, stack.infra.env);

    expect(await Promise.all(references.map(ask))).toEqual(before);
    await expect.poll(async () => (await ask('BOOK-K4')).stage, { timeout: 5_000 }).toBe('paid');
  });
});
