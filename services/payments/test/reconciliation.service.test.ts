import { randomUUID } from 'node:crypto';
import { Rpc } from '@dzpay/contracts';
import { createLogger, requestRpc } from '@dzpay/platform';
import type { Gauge } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { satimCardNetwork } from '../src/card-network/satim-client.ts';
import {
  RECONCILIATION_LOCK,
  reconciliationRepository,
} from '../src/reconciliation/reconciliation-repository.ts';
import type { PaymentsContext } from '../src/context.ts';
import { reconciler, type ReconciliationReport } from '../src/reconciliation/reconciler.ts';
import { startReconciliationSchedule } from '../src/reconciliation/reconciliation-schedule.ts';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * The reconciler against the real sandbox: each discrepancy is built for real (a payment
 * marked failed behind the settlement's back, a refund made at the network behind
 * dzpay's, a success whose order was never paid…), asked for over NATS as the admin CLI
 * asks, and the report, the fixes and the metric are checked. The sandbox keeps every
 * order of the file, so each test looks at its own payments in the report.
 */

let h: PaymentsHarness;
let core: PaymentsContext;
const TOTAL = 155_000; // the harness' 150 000 centimes and its merchant's 50 DZD fee
const network = () =>
  satimCardNetwork({
    baseUrl: h.sandbox.url,
    userName: 'sandbox',
    password: 'sandbox',
    timeoutMs: 2_000,
  });

beforeAll(async () => {
  h = await startPaymentsHarness('payments-reconciliation', {
    // This file runs the sweeper's passes itself, when a test wants them.
    SWEEP_INTERVAL_MS: '86400000',
  });
  core = h.core();
}, 120_000);
afterAll(async () => {
  await h?.control.restoreCredentials().catch(() => undefined);
  await h?.stop();
});

const reconcile = (windowMs = 3_600_000) =>
  requestRpc(
    h.runtime.nats,
    h.infra.natsPrefix,
    Rpc.paymentsReconcile,
    { windowMs },
    { timeoutMs: 60_000 },
  );

const of = (report: ReconciliationReport, paymentId: string) =>
  report.discrepancies.filter((entry) => entry.paymentId === paymentId);

async function orderOf(paymentId: string): Promise<string> {
  const [row] = await h.db<{ cardnet_order_id: string }[]>`
    select cardnet_order_id from payments where id = ${paymentId}`;
  return row!.cardnet_order_id;
}

/** A payment paid on the card form and confirmed: success. */
async function succeeded(): Promise<string> {
  const { paymentId, checkoutToken } = await h.register();
  await h.payCard(await h.toCardForm(checkoutToken));
  expect((await h.comeBack(paymentId)).status).toBe('success');
  return paymentId;
}

/** A payment paid on the card form whose payer never came back: the order is deposited. */
async function paidNotBack(): Promise<string> {
  const { paymentId, checkoutToken } = await h.register();
  await h.payCard(await h.toCardForm(checkoutToken));
  return paymentId;
}

/** What the settlement would never write: failed with nothing owed, whatever the order holds. */
async function markFailed(paymentId: string, extra: { expiredMinutesAgo?: number } = {}) {
  await h.db`
    update payments set status = 'failed', failure_reason = 'expired', refund_due = false,
      expires_at = case when ${extra.expiredMinutesAgo ?? null}::int is null then expires_at
                   else now() - ${extra.expiredMinutesAgo ?? 0} * interval '1 minute' end
    where id = ${paymentId}`;
}

async function refundDue(paymentId: string): Promise<boolean> {
  const [row] = await h.db<{ refund_due: boolean }[]>`
    select refund_due from payments where id = ${paymentId}`;
  return row!.refund_due;
}

function gauge(name: string) {
  return h.runtime.ops.registry.getSingleMetric(name) as Gauge | undefined;
}

describe('reconciliation', () => {
  it('reports nothing on a clean system, skips the mode without a network, and sets the metric', async () => {
    const started = Date.now();
    const refunded = await succeeded();
    await h.refund(refunded, { amount: 50_000 });
    const declined = await h.register();
    await h.payCard(await h.toCardForm(declined.checkoutToken), '6280580000000017');
    await h.comeBack(declined.paymentId);
    // An attempt still on the card form: in flight, not compared.
    const open = await h.register();
    await h.toCardForm(open.checkoutToken);

    const report = await reconcile();
    expect(report.ran).toBe(true);
    expect(report.discrepancies).toEqual([]);
    expect(report.omitted).toBe(0);
    expect(report.modes).toEqual([
      { mode: 'test', outcome: 'checked', reason: null, ordersSeen: report.counts.ordersSeen },
      { mode: 'live', outcome: 'skipped', reason: 'no card network configured', ordersSeen: 0 },
    ]);
    expect(report.counts.ordersSeen).toBeGreaterThanOrEqual(3);
    expect(report.counts.inFlight).toBeGreaterThanOrEqual(1);
    expect(report.counts).toMatchObject({ fixed: 0, alarms: 0, busy: 0 });

    const discrepancies = (await gauge('dzpay_reconciliation_discrepancies')!.get()).values;
    expect(discrepancies.length).toBeGreaterThan(0);
    expect(discrepancies.every((sample) => sample.value === 0)).toBe(true);
    const [lastRun] = (await gauge('dzpay_reconciliation_last_run_timestamp_seconds')!.get())
      .values;
    expect(lastRun!.value * 1000).toBeGreaterThanOrEqual(started);
  });

  it('sets a refund due for money captured for a failed payment; the sweeper returns it', async () => {
    const paymentId = await paidNotBack();
    await markFailed(paymentId);

    const report = await reconcile();
    expect(of(report, paymentId)).toEqual([
      expect.objectContaining({
        kind: 'captured-for-failed',
        outcome: 'fixed',
        amount: TOTAL,
        orderId: await orderOf(paymentId),
      }),
    ]);
    expect(await refundDue(paymentId)).toBe(true);

    await h.sweepOnce(core);
    const order = await network().status(await orderOf(paymentId));
    expect(order.refundedAmount).toBe(TOTAL);
    expect(await refundDue(paymentId)).toBe(false);
    expect(of(await reconcile(), paymentId)).toEqual([]);
  });

  it('sets a refund due for a failed payment whose order is still payable past the grace; the sweeper reverses it', async () => {
    const { paymentId, checkoutToken } = await h.register();
    await h.toCardForm(checkoutToken);
    await markFailed(paymentId, { expiredMinutesAgo: 20 });

    expect(of(await reconcile(), paymentId)).toEqual([
      expect.objectContaining({ kind: 'payable-after-failure', outcome: 'fixed', amount: TOTAL }),
    ]);
    await h.sweepOnce(core);
    const order = await network().status(await orderOf(paymentId));
    expect(['registered', 'preauthorized']).not.toContain(order.state);
    expect(of(await reconcile(), paymentId)).toEqual([]);
  });

  it('leaves a fix to the next run while the payment is being settled', async () => {
    const paymentId = await paidNotBack();
    await markFailed(paymentId);
    await h.db`
      update payments set settle_lease = ${randomUUID()},
        settle_lease_until = now() + interval '1 minute'
      where id = ${paymentId}`;

    const report = await reconcile();
    expect(of(report, paymentId)).toEqual([
      expect.objectContaining({ kind: 'captured-for-failed', outcome: 'busy' }),
    ]);
    expect(report.counts.busy).toBeGreaterThanOrEqual(1);
    expect(await refundDue(paymentId)).toBe(false);

    await h.db`update payments set settle_lease = null, settle_lease_until = null where id = ${paymentId}`;
    expect(of(await reconcile(), paymentId)).toEqual([
      expect.objectContaining({ kind: 'captured-for-failed', outcome: 'fixed' }),
    ]);
    await h.sweepOnce(core);
  });

  it('raises an alarm for a refund made at the card network behind dzpay’s back', async () => {
    const paymentId = await succeeded();
    await network().refund(await orderOf(paymentId), 30_000);

    expect(of(await reconcile(), paymentId)).toEqual([
      expect.objectContaining({
        kind: 'refunded-beyond-intents',
        outcome: 'alarm',
        amount: 30_000,
        dzpayAmount: 0,
        networkAmount: 30_000,
      }),
    ]);
  });

  it('raises an alarm when dzpay recorded more refunded than the network shows', async () => {
    const paymentId = await succeeded();
    await h.db`update payments set refunded_amount = 20000 where id = ${paymentId}`;

    expect(of(await reconcile(), paymentId)).toEqual([
      expect.objectContaining({
        kind: 'refunded-less-than-recorded',
        outcome: 'alarm',
        amount: 20_000,
        dzpayAmount: 20_000,
        networkAmount: 0,
      }),
    ]);
  });

  it('raises an alarm for a success whose order was never paid, or that the network does not know', async () => {
    const unpaid = await h.register();
    await h.toCardForm(unpaid.checkoutToken);
    await h.db`update payments set status = 'success', paid_at = now() where id = ${unpaid.paymentId}`;
    // A success naming an order the network never had: not listed, read one by one.
    const unknown = await h.register();
    await h.db`
      update payments set status = 'success', paid_at = now(), cardnet_order_id = ${`gone-${randomUUID()}`}
      where id = ${unknown.paymentId}`;

    const report = await reconcile();
    expect(of(report, unpaid.paymentId)).toEqual([
      expect.objectContaining({
        kind: 'success-without-deposit',
        outcome: 'alarm',
        amount: TOTAL,
        networkAmount: TOTAL,
      }),
    ]);
    expect(of(report, unknown.paymentId)).toEqual([
      expect.objectContaining({
        kind: 'success-without-deposit',
        outcome: 'alarm',
        amount: TOTAL,
        networkAmount: null,
      }),
    ]);
  });

  it('raises an alarm for a success whose order is for another amount', async () => {
    const paymentId = await succeeded();
    await h.db`update payments set amount = amount + 100, total = total + 100 where id = ${paymentId}`;

    expect(of(await reconcile(), paymentId)).toEqual([
      expect.objectContaining({
        kind: 'amount-mismatch',
        outcome: 'alarm',
        amount: 100,
        dzpayAmount: TOTAL + 100,
        networkAmount: TOTAL,
      }),
    ]);
  });

  it('raises an alarm for an order that holds money for no dzpay payment', async () => {
    const registered = await network().register({
      orderNumber: `ORPHAN${Date.now() % 100_000_000}`,
      amount: TOTAL,
      returnUrl: 'http://127.0.0.1:9/return',
      failUrl: 'http://127.0.0.1:9/return',
      language: 'fr',
      description: 'not dzpay',
      sessionTimeoutSecs: 900,
      udf1: randomUUID(),
    });
    await h.payCard(registered.formUrl);

    const report = await reconcile();
    expect(report.discrepancies.filter((d) => d.orderId === registered.orderId)).toEqual([
      expect.objectContaining({
        kind: 'orphan-order',
        outcome: 'alarm',
        paymentId: null,
        amount: TOTAL,
      }),
    ]);
  });

  it('sets the metric to the alarms of the last run, by kind', async () => {
    const report = await reconcile();
    const samples = (await gauge('dzpay_reconciliation_discrepancies')!.get()).values;
    const value = (kind: string) => samples.find((s) => s.labels.kind === kind)?.value;
    for (const kind of [
      'refunded-beyond-intents',
      'refunded-less-than-recorded',
      'success-without-deposit',
      'amount-mismatch',
      'orphan-order',
    ]) {
      const alarms = report.discrepancies.filter((d) => d.kind === kind && d.outcome === 'alarm');
      expect(alarms.length, kind).toBeGreaterThan(0);
      expect(value(kind), kind).toBe(alarms.length);
    }
    // Fixed ones are not alarms.
    expect(value('captured-for-failed')).toBe(0);
  });

  it('logs each alarm at error level, with ids and amounts and never a card number', async () => {
    const lines: string[] = [];
    const own = reconciler({
      store: reconciliationRepository(h.db),
      repository: core.repository,
      withSettlement: core.withSettlement,
      cardNetworks: { test: network() },
      logger: createLogger('reconciliation-test', 'info', { write: (line) => lines.push(line) }),
      clock: () => new Date(),
      // Small pages: the walk goes through several.
      pageSize: 3,
    });
    const report = await own.run(new Date(Date.now() - 3_600_000));
    expect(report.counts.ordersSeen).toBe((await reconcile()).counts.ordersSeen);
    const errors = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const alarms = errors.filter((line) => line.level === 50 && line.reconciliation);
    expect(alarms).toHaveLength(report.counts.alarms);
    expect(alarms.map((line) => line.msg)).toContain(
      'reconciliation alarm: refunded-beyond-intents',
    );
    const text = lines.join('\n');
    expect(text).not.toMatch(/6280580000000009|\d{6}\*+\d{4}/);
  });

  it('runs on its schedule over its window, and stops when asked', async () => {
    const reports: ReconciliationReport[] = [];
    const scheduled = reconciler({
      store: reconciliationRepository(h.db),
      repository: core.repository,
      withSettlement: core.withSettlement,
      cardNetworks: { test: network() },
      logger: h.runtime.logger,
      clock: () => new Date(),
      onReport: (report) => reports.push(report),
    });
    const schedule = startReconciliationSchedule({
      reconciler: scheduled,
      intervalMs: 100,
      windowMs: 3_600_000,
      logger: h.runtime.logger,
    });
    await expect.poll(() => reports.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await schedule.stop();
    const ran = reports.length;
    expect(reports.every((report) => report.ran && report.counts.ordersSeen > 0)).toBe(true);
    const window = Date.parse(reports[0]!.until) - Date.parse(reports[0]!.since);
    expect(window).toBeGreaterThanOrEqual(3_600_000);
    expect(window).toBeLessThan(3_610_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reports).toHaveLength(ran);
  });

  it('raises the card network’s refusal of dzpay’s credentials as an alarm', async () => {
    await h.control.setCredentials({
      userName: 'rotated',
      password: 'elsewhere',
      errorMessage: 'The user must change the password',
    });
    try {
      const report = await reconcile();
      expect(report.modes[0]).toMatchObject({ mode: 'test', outcome: 'failed' });
      expect(report.discrepancies).toEqual([
        expect.objectContaining({
          kind: 'network-unreadable',
          outcome: 'alarm',
          mode: 'test',
          paymentId: null,
        }),
      ]);
      expect(report.discrepancies[0]!.detail).toContain('The user must change the password');
    } finally {
      await h.control.restoreCredentials();
    }
  });

  it('runs on one replica at a time: a run that cannot take the lock says so', async () => {
    const held = await h.db.reserve();
    try {
      await held`select pg_advisory_lock(hashtextextended(${RECONCILIATION_LOCK}, 0))`;
      const report = await reconcile();
      expect(report.ran).toBe(false);
      expect(report.reason).toMatch(/another reconciliation is running/);
      expect(report.discrepancies).toEqual([]);
    } finally {
      await held`select pg_advisory_unlock(hashtextextended(${RECONCILIATION_LOCK}, 0))`;
      held.release();
    }
    expect((await reconcile()).ran).toBe(true);
  });
});
