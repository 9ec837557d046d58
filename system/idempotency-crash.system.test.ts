import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { PaymentView, RegisteredPayment } from '@dzpay/contracts';
import { sandboxControl, type SandboxControl } from '@dzpay/cardnet-sandbox/control';
import { startSandbox, type Sandbox } from '@dzpay/cardnet-sandbox/service';
import { entryOf } from '@dzpay/stack';
import { spawnService, type ServiceProcess } from '@dzpay/testkit';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crashPoint, type CrashPoint } from '@dzpay/testkit/crash-point';
import { CARDS, payByHttp, pressPay } from './support/payer.ts';
import { eventTypesOf } from './support/payment-events.ts';
import { startStack, type Stack } from './support/stack.ts';

/**
 * Payments killed (SIGKILL) after what a request did committed and before its answer was
 * stored or sent: the merchant's retry with the same Idempotency-Key learns what
 * happened, never a 409 for good. The crash points are exact: the process waits at a
 * write (@dzpay/testkit/crash-point) and dies there, with the state a real crash leaves.
 */

const PAYMENTS_MAIN = entryOf('payments');
const SECRETS_KEY = randomBytes(32).toString('base64');
const LEASE_MS = 1_000;

let stack: Stack;
let sandbox: Sandbox;
let control: SandboxControl;
let payments: ServiceProcess | undefined;
let db: postgres.Sql;
let point: CrashPoint | undefined;
let apiKey: string;

const startPaymentsProcess = () =>
  spawnService(PAYMENTS_MAIN, {
    ...stack.infra.env,
    PUBLIC_BASE_URL: stack.gateway.url,
    CARDNET_TEST_URL: sandbox.url,
    SECRETS_KEY,
    // A dead process's hold on a key, and on a payment, ends this soon.
    IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
    SETTLE_LEASE_MS: String(LEASE_MS),
  });

beforeAll(async () => {
  // Long enough for a payer's return (confirmOrder.do) on a busy machine.
  stack = await startStack(
    'idempotency-crash',
    { PAYMENTS_TIMEOUT_MS: '5000' },
    {
      withQrConfig: false,
    },
  );
  sandbox = await startSandbox(
    { SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.1', SANDBOX_CONTROL: 'true', LOG_LEVEL: 'silent' },
    { handleSignals: false },
  );
  control = sandboxControl(sandbox.url);
  payments = await startPaymentsProcess();
  db = postgres(stack.infra.databaseUrl, { max: 2, onnotice: () => {} });
  apiKey = (await stack.merchant('Crash retry shop', { walletId: 'W-4' })).testKey;
});
afterEach(async () => {
  await point?.remove();
  point = undefined;
  await control.clearFaults();
});
afterAll(async () => {
  payments?.kill('SIGKILL');
  await db?.end();
  await sandbox?.close();
  await stack?.stop();
});

interface Answer {
  status: number;
  body: { errorCode?: string; data?: unknown };
  replayed: string | null;
}

async function send(path: string, body: unknown, key?: string): Promise<Answer> {
  const response = await stack.post(path, body, {
    'x-api-key': apiKey,
    ...(key ? { 'idempotency-key': key } : {}),
  });
  return {
    status: response.status,
    body: (await response.json()) as Answer['body'],
    replayed: response.headers.get('idempotent-replayed'),
  };
}

/**
 * The merchant's retry, as a client does it: again while the answer says "retry later"
 * (503, or the key still held by the dead request until its lease runs out).
 */
async function retry(path: string, body: unknown, key?: string): Promise<Answer> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await send(path, body, key);
    const later =
      answer.status === 503 ||
      (answer.status === 409 && answer.body.errorCode === 'IDEMPOTENCY409_KEY_REUSED');
    if (!later || Date.now() > deadline) return answer;
    await sleep(200);
  }
}

/** Kills payments at the crash point, then starts it again (a restart, as in production). */
async function crashAndRestart(at: CrashPoint, inFlight: Promise<Answer>): Promise<Answer> {
  const dying = payments!;
  await at.crash(async () => {
    dying.kill('SIGKILL');
    await dying.exited();
  });
  payments = undefined;
  // The gateway gives up on the dead request while payments starts again.
  const [first, restarted] = await Promise.all([inFlight, startPaymentsProcess()]);
  payments = restarted;
  return first;
}

const registration = (reference: string) => ({
  amount: 150_000,
  currency: 'DZD',
  reference,
  successUrl: 'https://shop.example/ok',
});

const paymentRow = async (reference: string) =>
  (
    await db<
      {
        id: string;
        status: string;
        failure_reason: string | null;
        order_number: string;
        cardnet_order_id: string | null;
      }[]
    >`select id, status, failure_reason, order_number, cardnet_order_id
      from payments.payments where reference = ${reference}`
  )[0];

/** The payer opens the link and pays it with an approved card: where they land. */
async function payAt(checkoutUrl: string) {
  const page = await fetch(checkoutUrl);
  expect(page.status).toBe(200);
  const paid = await payByHttp(checkoutUrl, CARDS.approved);
  return { page: await page.text(), ...paid };
}

describe('a registration whose process died before its answer was stored', () => {
  it('inside its transaction: nothing is left, and the retry registers the payment once, with a working link', async () => {
    const reference = `CRASH-REG-${randomUUID().slice(0, 8)}`;
    const key = `key-${reference}`;
    // The answer is stored in the transaction that writes the payment: the crash point
    // holds that transaction before its commit.
    point = await crashPoint(stack.infra.databaseUrl, {
      table: 'idempotency_keys',
      when: 'old.response is null and new.response is not null',
    });
    const inFlight = send('/api/v1/payments', registration(reference), key);
    await point.reached();
    expect(await paymentRow(reference)).toBeUndefined();
    expect((await crashAndRestart(point, inFlight)).status).toBe(503);
    expect(await paymentRow(reference)).toBeUndefined();

    const answer = await retry('/api/v1/payments', registration(reference), key);
    expect(answer.body.errorCode).toBeUndefined();
    expect(answer.status).toBe(201);
    const payment = RegisteredPayment.parse(answer.body.data);
    // Once stored, that answer is the one replayed.
    const again = await send('/api/v1/payments', registration(reference), key);
    expect(again.replayed).toBe('true');
    expect(RegisteredPayment.parse(again.body.data)).toEqual(payment);

    // The link works: it shows the payment, and paying it pays this payment's order.
    const paid = await payAt(payment.checkoutUrl);
    expect(paid.page).toContain(reference);
    expect(paid.orderId).toBe((await paymentRow(reference))!.cardnet_order_id);
    expect(paid.finalUrl).toContain('https://shop.example/ok');
    const read = await stack.get(`/api/v1/payments/${payment.id}`, { 'x-api-key': apiKey });
    expect(PaymentView.parse(((await read.json()) as { data: unknown }).data).status).toBe(
      'success',
    );
  });

  it('after the card network was seen out: the retry answers 502 as the first would have, not 409', async () => {
    // A payer's click finds the network out: registrations answer 502 for a while.
    const opened = RegisteredPayment.parse(
      (await send('/api/v1/payments', registration(`CRASH-OUT-${randomUUID().slice(0, 8)}`))).body
        .data,
    );
    await control.setFaults([{ operation: 'register', effect: 'unavailable' }]);
    const click = await pressPay(opened.checkoutUrl);
    expect(click.status).toBe(503);

    const reference = `CRASH-502-${randomUUID().slice(0, 8)}`;
    const key = `key-${reference}`;
    point = await crashPoint(stack.infra.databaseUrl, {
      table: 'idempotency_keys',
      when: 'old.response is null and new.response is not null',
    });
    const inFlight = send('/api/v1/payments', registration(reference), key);
    await point.reached();
    expect(await paymentRow(reference)).toMatchObject({
      status: 'failed',
      failure_reason: 'card network unavailable at registration',
    });
    expect((await crashAndRestart(point, inFlight)).status).toBe(503);
    await control.clearFaults();

    const answer = await retry('/api/v1/payments', registration(reference), key);
    expect(answer.body.errorCode).toBe('CARDNET502_REGISTRATION_FAILED');
    expect(answer.status).toBe(502);
  });
});

describe("a checkout whose payments process died while the payer's click held register.do", () => {
  it('is registered anew on the next click, under a new number; the order the network still made is paid by nobody', async () => {
    const reference = `CRASH-PRE-${randomUUID().slice(0, 8)}`;
    const payment = RegisteredPayment.parse(
      (await send('/api/v1/payments', registration(reference))).body.data,
    );
    const committed = (await paymentRow(reference))!;
    // register.do reaches the card network and is held there.
    await control.setFaults([{ operation: 'register', effect: 'hang' }]);
    const click = pressPay(payment.checkoutUrl);
    await expect
      .poll(async () => (await control.faults())[0]?.applied, { timeout: 10_000 })
      .toBe(1);
    expect(await paymentRow(reference)).toMatchObject({
      status: 'pending',
      cardnet_order_id: null,
    });
    payments!.kill('SIGKILL');
    await payments!.exited();
    // The held call goes on: the card network registers the old order number, for nobody.
    await control.clearFaults();
    await expect
      .poll(async () =>
        (await control.ledger()).some((o) => o.orderNumber === committed.order_number),
      )
      .toBe(true);
    const [first, restarted] = await Promise.all([click, startPaymentsProcess()]);
    payments = restarted;
    expect(first.status).toBe(503);

    const paid = await payAt(payment.checkoutUrl);
    expect(paid.page).toContain(reference);
    const registered = (await paymentRow(reference))!;
    expect(registered.order_number).not.toBe(committed.order_number);
    expect(paid.orderId).toBe(registered.cardnet_order_id);
    expect(paid.finalUrl).toContain('https://shop.example/ok');
  });
});

describe('a cancel whose process died after the state change, before its answer', () => {
  it('is answered by the retry with the cancelled payment (200)', async () => {
    const reference = `CRASH-CANCEL-${randomUUID().slice(0, 8)}`;
    const registered = await send('/api/v1/payments', registration(reference));
    const payment = RegisteredPayment.parse(registered.body.data);
    // The cancel's last write: its settlement lease let go, after the cancel committed.
    point = await crashPoint(stack.infra.databaseUrl, {
      table: 'payments',
      when: `old.settle_lease is not null and new.settle_lease is null
             and new.failure_reason = 'cancelled'`,
    });
    const inFlight = send(`/api/v1/payments/${payment.id}/cancel`, {});
    await point.reached();
    expect(await paymentRow(reference)).toMatchObject({
      status: 'failed',
      failure_reason: 'cancelled',
    });
    expect((await crashAndRestart(point, inFlight)).status).toBe(503);

    const answer = await retry(`/api/v1/payments/${payment.id}/cancel`, {});
    expect(answer.body.errorCode).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(PaymentView.parse(answer.body.data)).toMatchObject({
      id: payment.id,
      status: 'cancelled',
    });
    const events = () =>
      eventTypesOf(stack.gateway.runtime.nats, stack.infra.natsPrefix, payment.id);
    await expect.poll(events, { timeout: 5_000 }).toEqual(['payment.created', 'payment.failed']);
  });
});

describe('a refund whose process died after the refund happened, before its answer was stored', () => {
  it('is answered by the retry with that refund: not a second one, not an error', async () => {
    const reference = `CRASH-REFUND-${randomUUID().slice(0, 8)}`;
    const registered = await send('/api/v1/payments', registration(reference));
    const payment = RegisteredPayment.parse(registered.body.data);
    const { orderId } = await payByHttp(payment.checkoutUrl, CARDS.approved);
    const refund = { amount: 50_000 };
    const key = `key-${reference}`;
    point = await crashPoint(stack.infra.databaseUrl, {
      table: 'idempotency_keys',
      when: 'new.response is not null',
    });
    const inFlight = send(`/api/v1/payments/${payment.id}/refund`, refund, key);
    await point.reached();
    const refunded = async () =>
      (await control.ledger()).find((order) => order.orderId === orderId)?.refundedAmount;
    expect(await refunded()).toBe(50_000);
    expect((await crashAndRestart(point, inFlight)).status).toBe(503);

    const answer = await retry(`/api/v1/payments/${payment.id}/refund`, refund, key);
    expect(answer.body.errorCode).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(PaymentView.parse(answer.body.data)).toMatchObject({
      id: payment.id,
      status: 'success',
      refundedAmount: 50_000,
    });
    expect(await refunded()).toBe(50_000);
    expect((await control.stats()).calls.refund).toBe(1);
  });
});
