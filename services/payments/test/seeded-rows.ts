import { randomBytes, randomUUID } from 'node:crypto';
import type { Sql } from '@dzpay/platform';

// Rows written straight into the payments schema, as payments itself would leave them:
// what the SQL of the balance and the daily report is tested against.

export type Scope = { merchantId: string; mode: 'test' | 'live' };

let orders = 0;

export async function seedPayment(
  sql: Sql,
  scope: Scope,
  seed: { status: string; total: number; fee: number; paidAt: string | null },
): Promise<string> {
  const id = randomUUID();
  await sql`
    insert into payments (id, merchant_id, mode, channel, reference, reference_kind, epoch,
      merchant_name, amount, fee, total, currency, language, status, checkout_token_hash,
      order_number, expires_at, paid_at)
    values (${id}, ${scope.merchantId}, ${scope.mode}, 'CHECKOUT', ${`B-${id}`}, 'order', 0,
      'Shop', ${seed.total - seed.fee}, ${seed.fee}, ${seed.total}, 'DZD', 'fr', ${seed.status},
      ${randomBytes(32)}, ${`B${String(++orders).padStart(9, '0')}`}, now(),
      ${seed.paidAt})`;
  return id;
}

export async function seedRefund(
  sql: Sql,
  paymentId: string,
  scope: Scope,
  seed: { amount: number; state: string; reason?: string; at: string },
): Promise<void> {
  await sql`
    insert into refunds (id, payment_id, merchant_id, mode, amount, reason, state,
      base_refunded, created_at, updated_at)
    values (${randomUUID()}, ${paymentId}, ${scope.merchantId}, ${scope.mode}, ${seed.amount},
      ${seed.reason ?? 'merchant'}, ${seed.state}, 0, ${seed.at}, ${seed.at})`;
}

export async function seedPayout(
  sql: Sql,
  scope: Scope,
  seed: { amount: number; at: string; reference?: string },
): Promise<void> {
  await sql`
    insert into payouts (id, merchant_id, mode, amount, wallet, reference, recorded_by, recorded_at)
    values (${randomUUID()}, ${scope.merchantId}, ${scope.mode}, ${seed.amount}, 'W-1',
      ${seed.reference ?? `SEED-${randomUUID()}`}, 'seed', ${seed.at})`;
}
