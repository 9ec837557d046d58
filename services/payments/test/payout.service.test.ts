import { randomUUID } from 'node:crypto';
import { Rpc, type PayoutRecordRequest } from '@dzpay/contracts';
import {
  AppError,
  connectPostgres,
  requestRpc,
  type NatsConnection,
  type Sql,
} from '@dzpay/platform';
import type { IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBalanceHandlers } from '../src/balance/balance-handlers.ts';
import { seedPayment, seedPayout, seedRefund, type Scope } from './seeded-rows.ts';
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

describe('a bank reference, however it is typed', () => {
  it('is one payout whatever its case and surrounding spaces', async () => {
    const scope = await merchantWith(100_000);
    const first = await record(scope, { amount: 10_000, reference: 'BNA-2026-03-0001' });
    const lower = await record(scope, { amount: 10_000, reference: ' bna-2026-03-0001 ' });
    expect(lower).toMatchObject({ replayed: true, payout: { id: first.payout.id } });
    const other = await refusal(record(scope, { amount: 20_000, reference: 'Bna-2026-03-0001' }));
    expect(other.code).toBe('PAYOUT409_REFERENCE_TAKEN');
    expect(await overall(scope)).toMatchObject({ payoutCount: 1, paidOut: 10_000 });
  });

  it('is compared in upper case by the lookup and by the unique index', async () => {
    const scope = await merchantWith(100_000);
    // A row not written through the contract: the database alone must hold the line.
    await seedPayout(sql, scope, {
      amount: 10_000,
      at: new Date().toISOString(),
      reference: 'bna-x-7',
    });
    const again = await record(scope, { amount: 10_000, reference: 'BNA-X-7' });
    expect(again.replayed).toBe(true);
    const twin = await sql`
      insert into payouts (id, merchant_id, mode, amount, wallet, reference, recorded_by)
      values (${randomUUID()}, ${scope.merchantId}, ${scope.mode}, 1, 'W-1', 'BNA-x-7', 'seed')`.then(
      () => null,
      (e: unknown) => (e as { constraint_name?: string }).constraint_name,
    );
    expect(twin).toBe('payouts_reference');
  });
});

describe('a payout under its lock', () => {
  /** Waits until some statement of this database waits for advisory lock (key1, key2). */
  async function untilWaiting(key: [number, number] | 'any') {
    for (let tries = 0; tries < 500; tries++) {
      const [row] = await sql<{ waiting: number }[]>`
        select count(*)::int as waiting from pg_locks l
        where l.locktype = 'advisory' and not l.granted
          and l.database = (select oid from pg_database where datname = current_database())
          and (${key === 'any'} or (l.classid = ${key === 'any' ? 0 : key[0]}
                                    and l.objid = ${key === 'any' ? 0 : key[1]}))`;
      if (row!.waiting > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the payout never waited for the lock');
  }

  it('counts a refund confirmed while it reads the balance once: never more than the balance', async () => {
    // The balance 100 000 − 10 000 confirmed = 90 000, less 50 000 still open: 40 000 may go.
    const scope = await merchantWith(100_000);
    const [payment] = await sql<{ id: string }[]>`
      select id from payments where merchant_id = ${scope.merchantId}`;
    const at = new Date().toISOString();
    await seedRefund(sql, payment!.id, scope, { amount: 10_000, state: 'succeeded', at });
    await seedRefund(sql, payment!.id, scope, { amount: 50_000, state: 'requested', at });
    // A gate in front of the refunds table: the payout's read of refunds stops at this
    // merchant's first row until the test lets it go, so the refund is confirmed by
    // another connection in the middle of the payout's balance, deterministically.
    const gate = [24, 1] as const;
    await sql.unsafe(`
      create table refunds_gate (merchant_id uuid primary key);
      create function refunds_gate_pass(m uuid) returns boolean language plpgsql volatile as $$
      begin
        if exists (select 1 from refunds_gate g where g.merchant_id = m) then
          perform pg_advisory_xact_lock_shared(${gate[0]}, ${gate[1]});
        end if;
        return true;
      end $$;
      alter table refunds rename to refunds_ungated;
      create view refunds as select * from refunds_ungated where refunds_gate_pass(merchant_id);`);
    const other = connectPostgres(infra.databaseUrl, 'payments', 1);
    try {
      await sql`insert into refunds_gate values (${scope.merchantId})`;
      await other`select pg_advisory_lock(${gate[0]}, ${gate[1]})`;
      const outcome = record(scope, { amount: 80_000 }).then(
        (reply) => reply,
        (e: unknown) => e,
      );
      await untilWaiting([gate[0], gate[1]]);
      // The refund is confirmed (refunds-repository complete) while the payout reads.
      await other`
        update refunds_ungated set state = 'succeeded', updated_at = now()
        where merchant_id = ${scope.merchantId} and state = 'requested'`;
      await other`select pg_advisory_unlock(${gate[0]}, ${gate[1]})`;
      const error = await outcome;
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        code: 'PAYOUT422_OVER_BALANCE',
        details: { balance: 90_000, pendingRefunds: 50_000, available: 40_000 },
      });
    } finally {
      await other.end();
      await sql.unsafe(`
        drop view refunds;
        alter table refunds_ungated rename to refunds;
        drop function refunds_gate_pass(uuid);
        drop table refunds_gate;`);
    }
    expect(await overall(scope)).toMatchObject({ refunds: 60_000, paidOut: 0, balance: 40_000 });
  });

  it('is dated when it is recorded, after the lock it waited for, not when it began', async () => {
    const scope = await merchantWith(100_000);
    const other = connectPostgres(infra.databaseUrl, 'payments', 1);
    try {
      const released = await other.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(
          hashtextextended(${`dzpay:payouts:${scope.merchantId}:${scope.mode}`}, 0))`;
        const waiting = record(scope, { amount: 10_000 });
        await untilWaiting('any');
        const [row] = await tx<{ at: string }[]>`select clock_timestamp()::text as at`;
        return { at: row!.at, waiting };
      });
      const { payout } = await released.waiting;
      const [row] = await sql<{ after: boolean }[]>`
        select recorded_at > ${released.at}::timestamptz as after
        from payouts where id = ${payout.id}`;
      expect(row?.after).toBe(true);
    } finally {
      await other.end();
    }
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
