import { runAdminCli } from '@dzpay/testkit/processes';
import type postgres from 'postgres';
import type {
  PaymentRow,
  ReconciliationReport,
  RefundRow,
  StatusAnswer,
  StatusRecord,
} from './oracle/evidence.ts';
import type { BalanceAnswer, BalanceData, PayoutRow } from './oracle/balance.ts';
import type { CampaignMerchant } from './world.ts';

// What the oracle reads once the run has settled, taken raw: rows straight from Postgres,
// status answers over HTTP, the reconciler's report from the operators' CLI. Nothing
// here parses with dzpay's own schemas.

export async function paymentRows(sql: postgres.Sql): Promise<PaymentRow[]> {
  return sql<PaymentRow[]>`
    select id, merchant_id, mode, channel, reference, reference_kind, epoch, status, amount,
           total, currency, cardnet_order_id, refunded_amount, refund_due, locks_reference,
           awaiting_verdict, failure_reason, expires_at, paid_at, created_at, updated_at
    from payments.payments`;
}

export async function refundRows(sql: postgres.Sql): Promise<RefundRow[]> {
  return sql<RefundRow[]>`
    select id, payment_id, amount, reason, state, network_reference, updated_at
    from payments.refunds`;
}

export async function payoutRows(sql: postgres.Sql): Promise<PayoutRow[]> {
  return sql<PayoutRow[]>`
    select id, merchant_id, mode, amount, reference, recorded_at from payments.payouts`;
}

/**
 * `GET /api/v1/balance` for every merchant (the campaign's are test mode), the range from
 * the day before the run to the day after: the oracle reads the overall figures and the
 * days' arithmetic, raw.
 */
export async function balanceAnswers(
  gatewayUrl: string,
  merchants: CampaignMerchant[],
  startedAt: number,
): Promise<BalanceAnswer[]> {
  const day = (at: number) => new Date(at + 3_600_000).toISOString().slice(0, 10); // Algiers: UTC+01:00
  const query = `from=${day(startedAt - 86_400_000)}&to=${day(Date.now() + 86_400_000)}`;
  const answers: BalanceAnswer[] = [];
  for (const merchant of merchants) {
    const response = await fetch(`${gatewayUrl}/api/v1/balance?${query}`, {
      headers: { 'x-api-key': merchant.testKey },
    });
    const body = (await response.json().catch(() => null)) as { data?: BalanceData } | null;
    answers.push({
      merchantId: merchant.id,
      mode: 'test',
      httpStatus: response.status,
      data: response.status === 200 ? (body?.data ?? null) : null,
    });
  }
  return answers;
}

/** The status endpoint's answer for every product reference the rows hold. */
export async function finalStatusAnswers(
  gatewayUrl: string,
  merchants: CampaignMerchant[],
  payments: PaymentRow[],
): Promise<StatusAnswer[]> {
  const keyOf = new Map(merchants.map((m) => [m.id, m.testKey]));
  const asked = new Map<string, { merchantId: string; mode: string; reference: string }>();
  for (const p of payments) {
    if (p.reference_kind !== 'product') continue;
    asked.set(`${p.merchant_id}\u0000${p.mode}\u0000${p.reference}`, {
      merchantId: p.merchant_id,
      mode: p.mode,
      reference: p.reference,
    });
  }
  const answers: StatusAnswer[] = [];
  for (const { merchantId, mode, reference } of asked.values()) {
    const response = await fetch(
      `${gatewayUrl}/partner/payments/v1/${encodeURIComponent(reference)}/status`,
      { headers: { 'x-api-key': keyOf.get(merchantId)! } },
    );
    const body = (await response.json().catch(() => null)) as { data?: StatusRecord } | null;
    answers.push({
      merchantId,
      mode,
      reference,
      at: Date.now(),
      httpStatus: response.status,
      record: response.status === 200 ? (body?.data ?? null) : null,
    });
  }
  return answers;
}

/**
 * `pnpm dzpay reconcile --since … --json`, as an operator runs it: the report, whatever it
 * found (the CLI exits 1 on an alarm, its JSON still printed).
 */
export async function reconcile(
  cliEnv: Record<string, string>,
  windowMs: number,
): Promise<ReconciliationReport> {
  const since = `${Math.ceil(windowMs / 1000)}s`;
  return runAdminCli<ReconciliationReport>(cliEnv, ['reconcile', '--since', since], {
    evenOnFailure: true,
  });
}
