import { randomBytes, randomUUID } from 'node:crypto';
import { sandboxControl, type SandboxControl } from '@dzpay/cardnet-sandbox/control';
import { startSandbox, type Sandbox } from '@dzpay/cardnet-sandbox/service';
import {
  Rpc,
  type MerchantTerms,
  type PaymentsRefundReply,
  type PaymentView,
} from '@dzpay/contracts';
import { AppError, connectPostgres, requestRpc, type Runtime, type Sql } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { loopbackOnlyConnect } from '@dzpay/testkit/loopback-connect';
import { expect } from 'vitest';
import { satimCardNetwork } from '../src/card-network/satim-client.ts';
import type { PaymentsEnv } from '../src/config.ts';
import { paymentsContext, type PaymentsContext } from '../src/context.ts';
import { startSweeper } from '../src/settlement/sweeper.ts';
import { startPayments } from '../src/service.ts';

/** The sandbox's test cards (docs/cardnet-sandbox.md). */
const CARDS = { approved: '6280580000000009', declined: '6280580000000017' } as const;

/**
 * Payments as it runs (in this process, over this file's own database and NATS prefix),
 * the card network sandbox with its control API, and what a medium test does with them:
 * the RPCs the gateway sends, the payer's card form, and the payments schema to read.
 */
export interface PaymentsHarness {
  infra: IsolatedInfra;
  runtime: Runtime<PaymentsEnv>;
  sandbox: Sandbox;
  control: SandboxControl;
  /** The payments schema, for reading what was recorded. */
  db: Sql;
  merchant: MerchantTerms;
  register(reference?: string, amount?: number, idempotencyKey?: string): Promise<Registered>;
  /** Starts an attempt on a single-use QR code's token, configuration `version`. */
  startQr(token: string, version?: number, amount?: number): Promise<Registered>;
  /** Presses pay on the checkout page: the card form's URL. */
  toCardForm(checkoutToken: string): Promise<string>;
  /** Submits the card form; the payer's browser is not followed (it may never come back). */
  payCard(formUrl: string, pan?: string): Promise<void>;
  /** The payer's return from the card form: settlement confirms the order. */
  comeBack(paymentId: string): Promise<{ status: string }>;
  get(id: string): Promise<PaymentView>;
  refund(id: string, options?: { amount?: number; key?: string }): Promise<PaymentsRefundReply>;
  /**
   * refund.do on the order acts but its answer is lost, and so are the next `lostReads`
   * status reads of it; the one read made before the refund goes through.
   */
  loseRefundAnswer(orderId: string, lostReads: number): Promise<void>;
  /**
   * The service's money-moving parts over this database and sandbox, with the test's own
   * clock and refund quiet time: what a test's own sweeper passes run on.
   */
  core(options?: {
    clock?: () => Date;
    refundQuietMs?: number;
    cardNetworks?: PaymentsContext['cardNetworks'];
  }): PaymentsContext;
  /** One sweeper pass over `core`, on its clock (the service's own runs on its interval). */
  sweepOnce(core: PaymentsContext): Promise<void>;
  stop(): Promise<void>;
}

/** A fresh static QR code's token. */
export const qrToken = () => `QR${randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase()}`;

/** The code a refused call was answered with (a call that succeeds, or fails otherwise, throws). */
export async function refusal(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error.code;
}

/**
 * `payers` payers start the same QR sale at once: exactly one opens it, every other one
 * is refused as locked.
 */
export async function expectOneOpensSale(h: PaymentsHarness, payers: number): Promise<void> {
  const qr = qrToken();
  const outcomes = await Promise.all(
    Array.from({ length: payers }, () =>
      h.startQr(qr).then(
        () => 'opened',
        (e: unknown) => (e instanceof AppError ? e.code : String(e)),
      ),
    ),
  );
  expect(outcomes.filter((o) => o === 'opened')).toHaveLength(1);
  expect(new Set(outcomes.filter((o) => o !== 'opened'))).toEqual(new Set(['REFERENCE409_LOCKED']));
}

/** What medium tests build their own core and sweeper with (the service's defaults, shorter). */
const CORE_CONFIG = {
  SETTLE_LEASE_MS: 10_000,
  IDEMPOTENCY_LEASE_MS: 10_000,
  CARDNET_TIMEOUT_MS: 2_000,
  CARDNET_DOWN_MS: 5_000,
  REFUND_HORIZON_MS: 60 * 60 * 1000,
};

export interface Registered {
  paymentId: string;
  checkoutToken: string;
}

export async function startPaymentsHarness(
  label: string,
  env: Record<string, string> = {},
): Promise<PaymentsHarness> {
  const infra = await isolatedInfra(label);
  const sandbox = await startSandbox(
    { SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.1', SANDBOX_CONTROL: 'true', LOG_LEVEL: 'silent' },
    { handleSignals: false },
  );
  const runtime = await startPayments(
    {
      ...infra.env,
      CARDNET_TEST_URL: sandbox.url,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      PUBLIC_BASE_URL: 'http://127.0.0.1:9',
      // Test partners listen on 127.0.0.1.
      PARTNER_ALLOW_PRIVATE_TARGETS: 'true',
      ...env,
    },
    // Whatever a test points a partner at, nothing is dialed outside loopback.
    { handleSignals: false, partnerConnect: loopbackOnlyConnect([]) },
  );
  const db = connectPostgres(infra.databaseUrl, 'payments', 2);
  const merchant: MerchantTerms = {
    merchantId: randomUUID(),
    mode: 'test',
    name: 'Medium test shop',
    feeDzd: 50,
    minAmount: 5_000,
    maxAmount: 100_000_000,
    hasWallet: true,
  };
  const rpc: typeof requestRpc = (nats, prefix, definition, request) =>
    requestRpc(nats, prefix, definition, request, { timeoutMs: 30_000 });
  const { nats } = runtime;
  const prefix = infra.natsPrefix;

  const control = sandboxControl(sandbox.url);
  return {
    async loseRefundAnswer(orderId, lostReads) {
      await control.setFaults([
        {
          operation: 'getOrderStatusExtended',
          effect: 'latency',
          ms: 0,
          orderIds: [orderId],
          times: 1,
        },
        { operation: 'refund', effect: 'lost-answer', orderIds: [orderId], times: 1 },
        {
          operation: 'getOrderStatusExtended',
          effect: 'unavailable',
          orderIds: [orderId],
          times: lostReads,
        },
      ]);
    },
    infra,
    runtime,
    sandbox,
    control,
    db,
    merchant,
    async register(reference = `ORDER-${randomUUID().slice(0, 8)}`, amount = 150_000, key) {
      const payment = { amount, currency: 'DZD', reference };
      const reply = await rpc(nats, prefix, Rpc.paymentsRegister, {
        merchant,
        payment,
        ...(key ? { idempotency: { key, fingerprint: JSON.stringify(payment) } } : {}),
      });
      return { paymentId: reply.payment.id, checkoutToken: reply.checkoutToken };
    },
    startQr: (token, version = 1, amount = 150_000) =>
      rpc(nats, prefix, Rpc.attemptStart, {
        merchant,
        reference: token,
        language: 'fr',
        source: { kind: 'qr', amount, singleUse: true, configVersion: version },
      }),
    async toCardForm(checkoutToken) {
      const { formUrl } = await rpc(nats, prefix, Rpc.checkoutStart, { token: checkoutToken });
      if (!formUrl) throw new Error('no card form: the attempt is not payable');
      return formUrl;
    },
    async payCard(formUrl, pan = CARDS.approved) {
      const mdOrder = new URL(formUrl).searchParams.get('mdOrder')!;
      const response = await fetch(new URL('/payment/merchants/pay', formUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          mdOrder,
          pan,
          expiry: '12/30',
          cvv: '123',
          cardholderName: 'AMINA BELKACEM',
        }).toString(),
        redirect: 'manual',
      });
      if (response.status !== 303) throw new Error(`card form answered ${response.status}`);
    },
    comeBack: (paymentId) => rpc(nats, prefix, Rpc.checkoutReturn, { paymentId }),
    get: (id) =>
      rpc(nats, prefix, Rpc.paymentsGet, { merchantId: merchant.merchantId, mode: 'test', id }),
    refund: (id, options = {}) =>
      rpc(nats, prefix, Rpc.paymentsRefund, {
        merchantId: merchant.merchantId,
        mode: 'test',
        id,
        ...(options.amount !== undefined ? { amount: options.amount } : {}),
        ...(options.key
          ? { idempotency: { key: options.key, fingerprint: String(options.amount ?? 'all') } }
          : {}),
      }),
    core(options = {}) {
      const network = satimCardNetwork({
        baseUrl: sandbox.url,
        userName: 'sandbox',
        password: 'sandbox',
        timeoutMs: 2_000,
      });
      return paymentsContext({
        sql: db,
        logger: runtime.logger,
        cardNetworks: options.cardNetworks ?? { test: network, live: network },
        config: {
          ...CORE_CONFIG,
          PUBLIC_BASE_URL: runtime.config.PUBLIC_BASE_URL,
          PAYMENT_WINDOW_MS: runtime.config.PAYMENT_WINDOW_MS,
          LINK_PRESS_HOLD_MS: runtime.config.LINK_PRESS_HOLD_MS,
          SECRETS_KEY: runtime.config.SECRETS_KEY,
          REFUND_QUIET_MS: options.refundQuietMs ?? 30_000,
        },
        ...(options.clock ? { clock: options.clock } : {}),
      });
    },
    async sweepOnce(core) {
      const sweeper = startSweeper({
        ...core,
        logger: runtime.logger,
        intervalMs: 86_400_000,
        staleAfterMs: 60_000,
        refundQuietMs: core.refundQuietMs,
        clock: core.clock,
      });
      await sweeper.runOnce();
      await sweeper.stop();
    },
    async stop() {
      await runtime.stop();
      await db.end();
      await sandbox.close();
      await infra.cleanup();
    },
  };
}
