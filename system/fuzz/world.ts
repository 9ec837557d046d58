import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSandbox, type Sandbox } from '@dzpay/cardnet-sandbox/service';
import { startMailCatcher, type MailCatcher } from '@dzpay/testkit';
import { accountsRepository } from '@dzpay/accounts';
import { connectPartner, payProductReference } from '../support/partner-merchant.ts';
import { CARDS, payByHttp } from '../support/payer.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { startFuzzPartner, type FuzzPartner } from './partner.ts';

/**
 * Real things for the generators to aim at, so that a good share of requests gets past
 * authentication and lookups into the deep handlers: keys of every kind, configured and
 * bare QR codes, open and paid payments, webhook deliveries, product references.
 */
export interface World {
  merchantId: string;
  inactiveMerchantId: string;
  keys: { test: string; live: string; inactive: string; revoked: string };
  qrTokens: string[];
  checkoutTokens: string[];
  paymentIds: string[];
  deliveryIds: string[];
  references: string[];
}

export interface FuzzStack {
  stack: Stack;
  world: World;
  stop(): Promise<void>;
}

/**
 * The whole system in this process (gateway, qr-config, payments, card network sandbox,
 * status, webhook dispatcher, receipts with a mail catcher), with rate limits far above
 * what a fuzz run sends so that a 429 never hides an answer.
 */
export async function startFuzzStack(label: string): Promise<FuzzStack> {
  const secretsKey = randomBytes(32).toString('base64');
  const partner: FuzzPartner = await startFuzzPartner();
  const mail: MailCatcher = await startMailCatcher();
  // Live keys pay on a card network too: a second sandbox stands in for the real one,
  // which a deployment configures and a test has not.
  const liveCardNetwork: Sandbox = await startSandbox(
    { SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    { handleSignals: false },
  );
  const others = async () => {
    await partner.close();
    await mail.close();
    await liveCardNetwork.close();
  };
  const stack = await startStack(
    label,
    {
      SECRETS_KEY: secretsKey,
      RATE_LIMIT_PER_MINUTE: '10000000',
      STATUS_RATE_LIMIT_PER_MINUTE: '10000000',
      // Far below the fuzzer's hang deadline: a slow backend shows as a 503, not a hang.
      SERVICE_TIMEOUT_MS: '5000',
      PAYMENTS_TIMEOUT_MS: '8000',
      RECEIPTS_TIMEOUT_MS: '8000',
    },
    {
      withPayments: {
        CARDNET_LIVE_URL: liveCardNetwork.url,
        CARDNET_LIVE_USERNAME: 'sandbox',
        CARDNET_LIVE_PASSWORD: 'sandbox',
      },
      withStatus: true,
      withWebhooks: { SECRETS_KEY: secretsKey, WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200' },
      withReceipts: { ...mail.env, SMTP_FROM: 'receipts@dzpay.test' },
    },
  );
  try {
    const world = await seedWorld(stack, partner, secretsKey);
    return {
      stack,
      world,
      async stop() {
        await stack.stop();
        await others();
      },
    };
  } catch (error) {
    await stack.stop();
    await others();
    throw error;
  }
}

async function seedWorld(stack: Stack, partner: FuzzPartner, secretsKey: string): Promise<World> {
  const accounts = accountsRepository(stack.gateway.runtime.sql);
  const shop = await stack.merchant('Librairie Fuzz', { walletId: 'W-FUZZ', feeDzd: 20 });
  await connectPartner(
    stack,
    shop.id,
    { url: partner.url, signingSecret: 'whsec-fuzz-signing-secret' },
    secretsKey,
  );
  const inactive = await stack.merchant('Ancien commerce');
  await accounts.setMerchantActive(inactive.id, false);
  const revoked = await stack.merchant('Clé révoquée');
  await accounts.revokeKey(revoked.keyIds[0]!);

  const qrTokens: string[] = [];
  for (const [amounts, singleUse] of [
    [[1500], false],
    [[1500, 2500.5, 100], false],
    [[990], true],
  ] as const) {
    const token = await stack.qrCode(shop.id);
    const set = await stack.post(
      '/set-qr-config',
      { token, amounts, singleUse },
      { 'x-api-key': shop.testKey },
    );
    if (set.status !== 200) throw new Error(`set-qr-config answered ${set.status}`);
    qrTokens.push(token);
  }
  qrTokens.push(await stack.qrCode(shop.id)); // never configured

  const client = stack.client(shop.testKey);
  const open = await client.registerPayment({
    amount: 150_050,
    currency: 'DZD',
    reference: 'FUZZ-OPEN-1',
    successUrl: 'https://shop.example.dz/merci?cart=1',
  });
  const paid = await client.registerPayment({
    amount: 250_000,
    currency: 'DZD',
    reference: 'FUZZ-PAID-1',
  });
  await payByHttp(paid.checkoutUrl, CARDS.approved);
  const declined = await client.registerPayment({
    amount: 9_900,
    currency: 'DZD',
    reference: 'FUZZ-FAILED-1',
  });
  await payByHttp(declined.checkoutUrl, CARDS.insufficientFunds);

  return {
    merchantId: shop.id,
    inactiveMerchantId: inactive.id,
    keys: {
      test: shop.testKey,
      live: shop.liveKey,
      inactive: inactive.testKey,
      revoked: revoked.testKey,
    },
    qrTokens,
    checkoutTokens: [open, paid, declined].map((payment) => tokenOf(payment.checkoutUrl)),
    paymentIds: [open.id, paid.id, declined.id],
    deliveryIds: await productDeliveries(stack, shop.id, shop.testKey),
    references: ['BOOK-1', 'BOOK-PAID-1', 'MISSING-1', 'PAID-1', 'FUZZ-OPEN-1'],
  };
}

const tokenOf = (checkoutUrl: string) => new URL(checkoutUrl).pathname.split('/').pop()!;

/**
 * Pays a partner product (an AGENCY payment, the kind that sends webhooks) and returns
 * its webhook deliveries once the status projection and the dispatcher have them.
 */
async function productDeliveries(stack: Stack, merchantId: string, key: string): Promise<string[]> {
  await payProductReference(stack, merchantId, 'BOOK-PAID-1', CARDS.approved);
  const headers = { 'x-api-key': key };
  for (let attempt = 0; attempt < 100; attempt++) {
    const status = (await (
      await stack.get('/partner/payments/v1/BOOK-PAID-1/status', headers)
    ).json()) as { data?: { paymentId: string | null } };
    const paymentId = status.data?.paymentId;
    if (paymentId) {
      const listed = (await (
        await stack.get(`/api/v1/payments/${paymentId}/webhooks`, headers)
      ).json()) as { data?: { deliveries?: { id: string }[] } };
      const ids = (listed.data?.deliveries ?? []).map((delivery) => delivery.id);
      if (ids.length > 0) return ids;
    }
    await sleep(100);
  }
  throw new Error('the paid product reference has no webhook delivery after 10 s');
}
