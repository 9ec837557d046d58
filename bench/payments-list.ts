import { connectPostgres, type Sql } from '@dzpay/platform';
import type autocannon from 'autocannon';
import type { Measure } from './measure.ts';
import { settings } from './settings.ts';
import type { BenchStack } from './stack.ts';

// The payments-list row of `pnpm bench` (BENCH_ONLY=payments-list runs it alone):
// GET /api/v1/payments?limit=10 for a merchant with a million payments and for one with
// ten. The keyset page (migration 008's index) must cost the same for both. See
// docs/benchmarks.md.

/**
 * The page size: the small merchant's whole list, so both rows answer the same ten
 * payments' worth of JSON and differ only in what the database has to look through.
 */
const PAGE = 10;

export interface ListMerchant {
  merchantId: string;
  key: string;
}

/**
 * `count` payments of the merchant in one INSERT … SELECT generate_series, one a second
 * back from now, every merchant-facing status among them; then VACUUM and ANALYZE, so the planner
 * knows the table as a production one would be known.
 */
export async function seedPayments(
  payments: Sql,
  merchantId: string,
  count: number,
): Promise<number> {
  const started = performance.now();
  await payments`
    insert into payments (id, merchant_id, mode, channel, reference, reference_kind, epoch,
      merchant_name, amount, fee, total, currency, language, status, failure_reason,
      metadata, checkout_token_hash, order_number, expires_at, created_at, updated_at)
    select gen_random_uuid(), ${merchantId}, 'test', 'CHECKOUT', 'BULK-' || ${merchantId} || '-' || g,
      'order', 0, 'Bench', 150000, 5000, 155000, 'DZD', 'fr',
      (array['success', 'failed', 'pending', 'refunded'])[1 + g % 4],
      case when g % 4 = 1 then 'expired' end,
      jsonb_build_object('cart', (g % 1000)::text),
      uuid_send(gen_random_uuid()),
      'K' || substr(${merchantId}, 1, 8) || lpad(g::text, 9, '0'),
      now() - g * interval '1 second' + interval '15 minutes',
      now() - g * interval '1 second', now() - g * interval '1 second'
    from generate_series(1, ${count}) as g`;
  // VACUUM too: a million fresh rows would otherwise start autovacuum in the middle of the
  // measured run, on the same two cores, and bill its work to the big merchant's row.
  await payments`vacuum (freeze, analyze) payments`;
  // And the gigabyte of pages it dirtied is written out now, not by the checkpointer then.
  await payments`checkpoint`;
  return Math.round(performance.now() - started);
}

/** GET /api/v1/payments?limit=10 with the merchant's key. */
export function listOptions(
  baseUrl: string,
  merchant: ListMerchant,
): Omit<autocannon.Options, 'duration' | 'connections'> {
  return {
    url: `${baseUrl}/api/v1/payments?limit=${PAGE}`,
    method: 'GET',
    headers: { 'x-api-key': merchant.key },
  };
}

/** Fails fast unless the first page is a 200 of PAGE payments (or all of them, under PAGE). */
export async function checkList(
  baseUrl: string,
  merchant: ListMerchant,
  expected: number,
): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v1/payments?limit=${PAGE}`, {
    headers: { 'x-api-key': merchant.key },
  });
  const text = await response.text();
  const shown = response.ok
    ? (JSON.parse(text) as { data: { payments: unknown[] } }).data.payments.length
    : -1;
  if (shown !== Math.min(PAGE, expected)) {
    throw new Error(`payments list answered ${response.status}: ${text.slice(0, 300)}`);
  }
}

/** The plan of the first page, for the record: it must be an index scan with a limit. */
export async function firstPagePlan(payments: Sql, merchantId: string): Promise<string> {
  const rows = await payments.unsafe(
    `explain (analyze, buffers) select * from payments
     where merchant_id = $1 and mode = 'test' order by created_at desc, id desc limit 21`,
    [merchantId],
  );
  return rows.map((row) => (row as Record<string, string>)['QUERY PLAN']).join('\n');
}

/**
 * payments-list: a merchant with BENCH_LIST_PAYMENTS payments (a million) and one with
 * ten, each listing its newest 20 through the gateway, NATS and payments.
 */
export async function paymentsListRows(
  stack: BenchStack,
  measure: Measure,
  publicBaseUrl: string,
): Promise<Record<string, autocannon.Result>> {
  const payments = connectPostgres(stack.databaseUrl, 'payments', 1);
  try {
    const merchants: Record<string, ListMerchant & { count: number }> = {};
    for (const [title, count] of [
      [`payments-list (${settings.listPayments} payments)`, settings.listPayments],
      ['payments-list (10 payments)', 10],
    ] as const) {
      const made = await stack.cli<{ id: string }>('merchant', 'create', `List ${count}`);
      const { key } = await stack.cli<{ key: string }>('key', 'issue', made.id, '--mode', 'test');
      const ms = await seedPayments(payments, made.id, count);
      console.log(`${title}: seeded in ${ms} ms`);
      merchants[title] = { merchantId: made.id, key, count };
    }
    const rows: Record<string, autocannon.Result> = {};
    for (const [title, merchant] of Object.entries(merchants)) {
      await checkList(publicBaseUrl, merchant, merchant.count);
      console.log(
        `${title} first page plan:\n${await firstPagePlan(payments, merchant.merchantId)}`,
      );
      rows[title] = await measure(title, listOptions(publicBaseUrl, merchant));
    }
    return rows;
  } finally {
    await payments.end();
  }
}
