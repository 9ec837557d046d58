import { randomBytes } from 'node:crypto';
import { PaymentView, RegisteredPayment } from '@dzpay/contracts';
import { startSandbox, type Sandbox } from '@dzpay/cardnet-sandbox/service';
import { spawnService, type ServiceProcess } from '@dzpay/testkit';
import { entryOf } from '@dzpay/stack';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARDS, submitCard } from './support/payer.ts';
import { eventTypesOf } from './support/payment-events.ts';
import { sandboxOrderStatus } from './support/sandbox-orders.ts';
import { startStack, type Stack } from './support/stack.ts';

const PAYMENTS_MAIN = entryOf('payments');
const SECRETS_KEY = randomBytes(32).toString('base64');

let stack: Stack;
let sandbox: Sandbox;
let payments: ServiceProcess | undefined;

const paymentsEnv = (extra: Record<string, string> = {}) => ({
  ...stack.infra.env,
  PUBLIC_BASE_URL: stack.gateway.url,
  CARDNET_TEST_URL: sandbox.url,
  SECRETS_KEY,
  // Longer than the test: payments is still waiting for confirmOrder when it dies.
  CARDNET_TIMEOUT_MS: '60000',
  // The dead process's claim on the payment runs out this soon (10 s by default).
  SETTLE_LEASE_MS: '2000',
  ...extra,
});

beforeAll(async () => {
  stack = await startStack(
    'payments-crash',
    { PAYMENTS_TIMEOUT_MS: '2000' },
    { withQrConfig: false },
  );
  // The "hangs at confirmation" card: deposited at once, confirmOrder.do answers late.
  sandbox = await startSandbox(
    {
      SANDBOX_PORT: '0',
      SANDBOX_HOST: '127.0.0.1',
      SANDBOX_CONFIRM_DELAY_MS: '60000',
      LOG_LEVEL: 'silent',
    },
    { handleSignals: false },
  );
  payments = await spawnService(PAYMENTS_MAIN, paymentsEnv());
});
afterAll(async () => {
  payments?.kill('SIGKILL');
  await sandbox?.close();
  await stack?.stop();
});

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

describe('payments killed between the card network approval and our commit', () => {
  it('ends, after a restart, with the payment success and its event published exactly once', async () => {
    const merchant = await stack.merchant('Crash shop', { walletId: 'W-9' });
    const registered = await stack.post(
      '/api/v1/payments',
      {
        amount: 120_000,
        currency: 'DZD',
        reference: `CRASH-${Date.now()}`,
        successUrl: 'https://shop.example/ok',
      },
      { 'x-api-key': merchant.testKey },
    );
    const payment = RegisteredPayment.parse(((await registered.json()) as { data: unknown }).data);

    const formUrl = (await fetch(`${payment.checkoutUrl}/pay`, form({}))).headers.get('location')!;
    const orderId = new URL(formUrl).searchParams.get('mdOrder')!;
    const submitted = await submitCard(formUrl, CARDS.hangsAtConfirm);
    // The card network took the money.
    expect(await sandboxOrderStatus(sandbox.url, orderId)).toBe(2);

    // The payer comes back; payments asks confirmOrder.do and waits. Kill it mid-wait.
    const comingBack = fetch(submitted.headers.get('location')!, { redirect: 'manual' }).catch(
      () => null,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    payments!.kill('SIGKILL');
    await payments!.exited();
    await comingBack;

    // Nothing was committed: the attempt is still processing in our books.
    const db = postgres(stack.infra.databaseUrl, { max: 1 });
    const [row] = await db<
      { status: string }[]
    >`select status from payments.payments where id = ${payment.id}`;
    await db.end();
    expect(row!.status).toBe('processing');

    payments = await spawnService(
      PAYMENTS_MAIN,
      paymentsEnv({
        RECONCILE_AFTER_MS: '300',
        SWEEP_INTERVAL_MS: '200',
        CARDNET_TIMEOUT_MS: '5000',
      }),
    );
    const read = async () => {
      const response = await stack.get(`/api/v1/payments/${payment.id}`, {
        'x-api-key': merchant.testKey,
      });
      return PaymentView.parse(((await response.json()) as { data: unknown }).data);
    };
    await expect.poll(async () => (await read()).status, { timeout: 10_000 }).toBe('success');
    expect((await read()).orderId).toBe(orderId);

    const events = () =>
      eventTypesOf(stack.gateway.runtime.nats, stack.infra.natsPrefix, payment.id);
    await expect
      .poll(events, { timeout: 5_000 })
      .toEqual(['payment.created', 'payment.processing', 'payment.succeeded']);
    // And it stays that way: nothing publishes the outcome a second time.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await events()).toEqual(['payment.created', 'payment.processing', 'payment.succeeded']);
  });
});
