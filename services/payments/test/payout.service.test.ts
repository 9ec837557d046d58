import { randomUUID } from 'node:crypto';
import { Rpc, type PayoutRecordRequest } from '@dzpay/contracts';
import { AppError, requestRpc, type NatsConnection, type Sql } from '@dzpay/platform';
import type { IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBalanceHandlers } from '../src/handlers/balance-handlers.ts';
import { seedPayment, seedRefund, type Scope } from './seeded-rows.ts';
import { startHandlersTestbed } from './handlers-testbed.ts';

let infra: IsolatedInfra;
let sql: Sql;
let nats: NatsConnection;
let stop: (() => Promise<void>) | undefined;

/** A merchant of its own per test, with `captured − fee` centimes to its balance. */
async function merchantWith(net: number, mode: Scope['mode'] = 'live'): Promise<Scope> {
  const scope = { merchantId: randomUUID(), mode };
  await seedPayment(sql, scope, {
    status: 'success',
    total: net + 5_000,
    fee: 5_000,
    paidAt: new Date(Date.now() - 3_600_000).toISOString(),
  });
  return scope;
}

const record = (scope: Scope, fields: Partial<PayoutRecordRequest> = {}) =>
  requestRpc(nats, infra.natsPrefix, Rpc.payoutRecord, {
    ...scope,
    amount: 10_000,
    wallet: 'W-1',
    reference: `BNA-${randomUUID()}`,
    operator: 'amina',
    ...fields,
  });

const overall = async (scope: Scope) => {
  const today = new Date().toISOString().slice(0, 10);
  const reply = await requestRpc(nats, infra.natsPrefix, Rpc.balanceGet, {
    ...scope,
    from: today,
    to: today,
  });
  return reply.overall;
};

async function refusal(call: Promise<unknown>): Promise<AppError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  // Enough connections that concurrent records really run at once.
  ({ infra, sql, nats, stop } = await startHandlersTestbed(
    'payments-payouts',
    serveBalanceHandlers,
    12,
  ));
});

afterAll(() => stop?.());

describe('payments.payouts.record', () => {
  it('records up to the balance and lowers it by exactly the payout', async () => {
    const scope = await merchantWith(100_000);
    const first = await record(scope, { amount: 60_000, reference: 'BNA-EXACT-1' });
    expect(first).toMatchObject({
      replayed: false,
      balance: 40_000,
      payout: { amount: 60_000, wallet: 'W-1', reference: 'BNA-EXACT-1', mode: 'live' },
    });
    const rest = await record(scope, { amount: 40_000 });
    expect(rest.balance).toBe(0);
    expect(await overall(scope)).toMatchObject({ paidOut: 100_000, payoutCount: 2, balance: 0 });
    const [row] = await sql<{ recorded_by: string }[]>`
      select recorded_by from payouts where id = ${first.payout.id}`;
    expect(row?.recorded_by).toBe('amina');
  });

  it('refuses more than the balance with a clear error, and records nothing', async () => {
    const scope = await merchantWith(100_000);
    const error = await refusal(record(scope, { amount: 100_001 }));
    expect(error.code).toBe('PAYOUT422_OVER_BALANCE');
    expect(error.message).toBe(
      'payout of 1000.01 DZD is more than the available balance of 1000.00 DZD',
    );
    expect(error.details).toMatchObject({ field: 'amount', balance: 100_000, available: 100_000 });
    expect((await overall(scope)).paidOut).toBe(0);
  });

  it('leaves merchant refunds still open aside', async () => {
    const scope = await merchantWith(100_000);
    const [payment] = await sql<{ id: string }[]>`
      select id from payments where merchant_id = ${scope.merchantId}`;
    await seedRefund(sql, payment!.id, scope, {
      amount: 30_000,
      state: 'requested',
      at: new Date().toISOString(),
    });
    const error = await refusal(record(scope, { amount: 70_001 }));
    expect(error.message).toContain('less 300.00 DZD of refunds still open');
    await expect(record(scope, { amount: 70_000 })).resolves.toMatchObject({ balance: 30_000 });
  });

  it('never lets concurrent records overdraw: they run one after the other', async () => {
    const scope = await merchantWith(100_000);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        record(scope, { amount: 30_000 }).then(
          () => 'recorded',
          (e: unknown) => (e instanceof AppError ? e.code : String(e)),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'recorded')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'PAYOUT422_OVER_BALANCE')).toHaveLength(7);
    expect(await overall(scope)).toMatchObject({ paidOut: 90_000, balance: 10_000 });
  });

  it('is idempotent on the bank reference, even when the same record races itself', async () => {
    const scope = await merchantWith(100_000);
    const reference = `BNA-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => record(scope, { amount: 25_000, reference })),
    );
    expect(new Set(answers.map((a) => a.payout.id)).size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    // Later, when the balance could no longer pay it, the same record is still answered.
    await record(scope, { amount: 75_000 });
    const again = await record(scope, { amount: 25_000, reference });
    expect(again).toMatchObject({ replayed: true, payout: { id: answers[0]!.payout.id } });
    expect(await overall(scope)).toMatchObject({ payoutCount: 2, paidOut: 100_000, balance: 0 });
  });

  it('refuses a reference that recorded another payout, of this merchant or another', async () => {
    const scope = await merchantWith(100_000);
    const reference = `BNA-${randomUUID()}`;
    await record(scope, { amount: 10_000, reference });
    const other = await refusal(record(scope, { amount: 20_000, reference }));
    expect(other.code).toBe('PAYOUT409_REFERENCE_TAKEN');
    expect(other.message).toContain('already records 100.00 DZD to wallet W-1');
    const elsewhere = await merchantWith(100_000);
    const theirs = await refusal(record(elsewhere, { amount: 10_000, reference }));
    expect(theirs.message).toContain('a payout of another merchant');
    // The other mode is another world: there the reference is free (and the balance 0).
    await expect(
      record({ ...scope, mode: 'test' }, { amount: 1, reference }).catch((e: AppError) => e.code),
    ).resolves.toBe('PAYOUT422_OVER_BALANCE');
  });
});

describe('payments.payouts.list', () => {
  it('pages newest first with stable cursors, and refuses a cursor it never gave', async () => {
    const scope = await merchantWith(100_000);
    for (let i = 1; i <= 5; i++)
      await record(scope, { amount: i * 100, reference: `P-${scope.merchantId}-${i}` });
    const list = (cursor?: string) =>
      requestRpc(nats, infra.natsPrefix, Rpc.payoutsList, {
        ...scope,
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
    const seen: number[] = [];
    let page = await list();
    seen.push(...page.payouts.map((p) => p.amount));
    while (page.nextCursor) {
      page = await list(page.nextCursor);
      seen.push(...page.payouts.map((p) => p.amount));
    }
    expect(seen).toEqual([500, 400, 300, 200, 100]);
    const error = await refusal(list('bm90LWEtY3Vyc29y'));
    expect(error.code).toBe('VALIDATION400_BAD_REQUEST');
  });
});
