import { randomBytes, randomUUID } from 'node:crypto';
import { Rpc, type PaymentListItem, type PaymentsListRequest } from '@dzpay/contracts';
import { requestRpc, type RpcServer } from '@dzpay/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { satimCardNetwork } from '../src/card-network/satim-client.ts';
import { serveCancelHandlers } from '../src/checkout/cancel-handlers.ts';
import { serveListingHandlers } from '../src/listing/listing-handlers.ts';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * payments.list (every filter, keyset order, pages stable while payments arrive) and
 * payments.cancel (reversed at the card network first, one outcome against a payer
 * paying at the same moment). The payments handlers run here over the harness's
 * database and sandbox on a NATS prefix of their own, with the card networks wired.
 */

let h: PaymentsHarness;
let servers: RpcServer[];
const prefix = `list_${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-list-cancel');
  const network = satimCardNetwork({
    baseUrl: h.sandbox.url,
    userName: 'sandbox',
    password: 'sandbox',
    timeoutMs: 2_000,
  });
  const ctx = {
    ...h.core({ cardNetworks: { test: network, live: network } }),
    nats: h.runtime.nats,
    prefix,
  };
  servers = [...(await serveListingHandlers(ctx)), ...(await serveCancelHandlers(ctx))];
});
afterAll(async () => {
  await Promise.all((servers ?? []).map((server) => server.stop()));
  await h?.stop();
});

const ask = <D extends (typeof Rpc)['paymentsList'] | (typeof Rpc)['paymentsCancel']>(
  definition: D,
  request: Parameters<typeof requestRpc<D>>[3],
) => requestRpc(h.runtime.nats, prefix, definition, request, { timeoutMs: 20_000 });

type Filter = Omit<PaymentsListRequest, 'merchantId' | 'mode' | 'limit'>;
const list = (merchantId: string, filter: Filter = {}, limit = 100) =>
  ask(Rpc.paymentsList, { merchantId, mode: 'test', limit, ...filter });

/** Every page after page: ids in the order given. */
async function all(merchantId: string, filter: Filter = {}, limit = 7): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(merchantId, { ...filter, ...(cursor ? { cursor } : {}) }, limit);
    ids.push(...page.payments.map((p) => p.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return ids;
}

interface Seed {
  id?: string;
  reference?: string;
  channel?: 'CHECKOUT' | 'AGENCY';
  status?: 'pending' | 'processing' | 'success' | 'failed' | 'refunded';
  failureReason?: string | null;
  metadata?: Record<string, unknown> | null;
  createdAt?: Date;
  mode?: 'test' | 'live';
}

/** A payment row written straight into the schema (what the list reads). */
async function seed(merchantId: string, s: Seed = {}): Promise<string> {
  const id = s.id ?? randomUUID();
  const [row] = await h.db<{ n: string }[]>`select nextval('order_numbers')::text as n`;
  const n = row!.n;
  await h.db`
    insert into payments (id, merchant_id, mode, channel, reference, reference_kind, epoch,
      merchant_name, amount, fee, total, currency, language, status, failure_reason, metadata,
      checkout_token_hash, order_number, expires_at, created_at)
    values (${id}, ${merchantId}, ${s.mode ?? 'test'}, ${s.channel ?? 'CHECKOUT'},
      ${s.reference ?? `R-${randomUUID()}`}, ${s.channel === 'AGENCY' ? 'product' : 'order'}, 0,
      'Shop', 150000, 5000, 155000, 'DZD', 'fr', ${s.status ?? 'pending'},
      ${s.failureReason ?? null}, ${s.metadata ? h.db.json(s.metadata as never) : null},
      ${randomBytes(32)}, ${`B${n.padStart(9, '0')}`}, now() + interval '15 minutes',
      ${s.createdAt ?? new Date()})`;
  return id;
}

/** created_at desc, id desc: the list's order, computed here from what was seeded. */
async function expectedOrder(merchantId: string, where = h.db`true`): Promise<string[]> {
  const rows = await h.db<{ id: string }[]>`
    select id from payments where merchant_id = ${merchantId} and mode = 'test' and ${where}
    order by created_at desc, id desc`;
  return rows.map((r) => r.id);
}

describe('payments.list', () => {
  const merchant = randomUUID();
  const base = Date.parse('2026-03-01T00:00:00Z');

  beforeAll(async () => {
    // 30 payments, 3 of them in the same microsecond (the id breaks the tie).
    for (let i = 0; i < 30; i++) {
      await seed(merchant, {
        createdAt: new Date(base + (i < 3 ? 0 : i) * 60_000),
        reference: `ORD-${String(i).padStart(3, '0')}`,
      });
    }
    await seed(merchant, { reference: 'A_B%1', status: 'success' });
    await seed(merchant, { reference: 'AXBY2', status: 'success' });
    await seed(merchant, { reference: 'A_B%3', channel: 'AGENCY', status: 'processing' });
    await seed(merchant, { status: 'failed', failureReason: 'expired' });
    await seed(merchant, { status: 'failed', failureReason: 'cancelled' });
    await seed(merchant, { status: 'failed', failureReason: 'declined' });
    await seed(merchant, { status: 'failed', failureReason: null });
    await seed(merchant, { status: 'refunded' });
    await seed(merchant, { metadata: { cart: '42', n: 42 } });
    await seed(merchant, { metadata: { cart: 42 } });
    // Not the merchant's: another merchant, and the other mode.
    await seed(randomUUID(), { reference: 'ORD-000' });
    await seed(merchant, { mode: 'live', reference: 'ORD-LIVE' });
  });

  it('pages newest first by (created_at, id), every payment once, with the view and channel', async () => {
    const expected = await expectedOrder(merchant);
    expect(expected).toHaveLength(40);
    expect(await all(merchant, {}, 7)).toEqual(expected);
    expect(await all(merchant, {}, 1)).toEqual(expected);
    const page = await list(merchant, {}, 100);
    expect(page.nextCursor).toBeNull();
    const one = page.payments.find((p) => p.reference === 'ORD-005')!;
    expect(one).toMatchObject({
      channel: 'CHECKOUT',
      status: 'created',
      amount: 150000,
      fees: 50, // whole DZD, as payments.get answers
      total: 155000,
      createdAt: new Date(base + 5 * 60_000).toISOString(),
    });
  });

  it('filters by every merchant-facing status', async () => {
    const statuses = async (status: PaymentListItem['status']) =>
      (await list(merchant, { status })).payments.map((p) => [p.status, p.failureReason]);
    expect(await statuses('expired')).toEqual([['expired', 'expired']]);
    expect(await statuses('cancelled')).toEqual([['cancelled', 'cancelled']]);
    expect((await statuses('failed')).map(String).sort()).toEqual(['failed,', 'failed,declined']);
    expect(await statuses('refunded')).toEqual([['refunded', null]]);
    expect(await statuses('processing')).toHaveLength(1);
    expect(await statuses('success')).toHaveLength(2);
    expect(await statuses('created')).toHaveLength(32);
  });

  it('filters by channel, reference, escaped prefix, dates and metadata', async () => {
    const refs = async (filter: Filter) =>
      (await list(merchant, filter)).payments.map((p) => p.reference).sort();
    expect(await refs({ channel: 'AGENCY' })).toEqual(['A_B%3']);
    expect(await refs({ reference: 'ORD-007' })).toEqual(['ORD-007']);
    expect(await refs({ reference: 'ORD-00' })).toEqual([]);
    // `_` and `%` are plain characters: AXBY2 does not match.
    expect(await refs({ referencePrefix: 'A_B%' })).toEqual(['A_B%1', 'A_B%3']);
    expect(await refs({ referencePrefix: 'ORD-02' })).toHaveLength(10);
    expect(
      await refs({
        createdFrom: new Date(base + 10 * 60_000).toISOString(),
        createdTo: new Date(base + 13 * 60_000).toISOString(),
      }),
    ).toEqual(['ORD-010', 'ORD-011', 'ORD-012']);
    const withCart = await list(merchant, { metadataKey: 'cart', metadataValue: '42' });
    expect(withCart.payments.map((p) => p.metadata)).toEqual([{ cart: '42', n: 42 }]);
  });

  it('refuses a tampered cursor with 400 naming the field', async () => {
    const { nextCursor } = await list(merchant, {}, 2);
    const tampered = `${nextCursor!.slice(0, -3)}x!y`;
    for (const cursor of [tampered, 'bm90IGEgY3Vyc29y', Buffer.from('1:2').toString('base64url')]) {
      await expect(list(merchant, { cursor })).rejects.toMatchObject({
        code: 'VALIDATION400_BAD_REQUEST',
        details: { failures: [{ field: 'cursor' }] },
      });
    }
  });

  it('stays stable while payments arrive: no duplicate, no skip among those that existed', async () => {
    const busy = randomUUID();
    for (let i = 0; i < 60; i++) await seed(busy, { createdAt: new Date(base + i * 1000) });
    const before = await expectedOrder(busy);
    let inserting = true;
    const inserter = (async () => {
      let inserted = 0;
      while (inserting) {
        await seed(busy);
        inserted++;
      }
      return inserted;
    })();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(busy, cursor ? { cursor } : {}, 5);
      seen.push(...page.payments.map((p) => p.id));
      cursor = page.nextCursor ?? undefined;
      await new Promise((resolve) => setTimeout(resolve, 5));
    } while (cursor);
    inserting = false;
    expect(await inserter).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length);
    const old = new Set(before);
    expect(seen.filter((id) => old.has(id))).toEqual(before);
  });
});

describe('payments.cancel', () => {
  const scope = () => ({ merchantId: h.merchant.merchantId, mode: 'test' as const });
  const cancel = (id: string) => ask(Rpc.paymentsCancel, { ...scope(), id });
  const orderOf = async (paymentId: string) => {
    const [row] = await h.db<{ cardnet_order_id: string }[]>`
      select cardnet_order_id from payments where id = ${paymentId}`;
    return (await h.control.ledger()).find((o) => o.orderId === row!.cardnet_order_id)!;
  };
  const events = (paymentId: string) =>
    h.db<{ type: string; failureReason: string | null }[]>`
      select payload->>'type' as type, payload->'data'->>'failureReason' as "failureReason"
      from outbox where payload->'data'->>'paymentId' = ${paymentId} order by created_at`;

  it('created → cancelled: no order ever reaches the card network, payment.failed in the outbox, idempotent', async () => {
    const payment = await h.register();
    const view = await cancel(payment.paymentId);
    expect(view).toMatchObject({ status: 'cancelled', failureReason: 'cancelled' });
    // Nobody opened the checkout: its order was never registered, so nothing to reverse.
    expect((await h.control.ledger()).some((o) => o.udf1 === payment.paymentId)).toBe(false);
    expect(await events(payment.paymentId)).toEqual([
      { type: 'payment.created', failureReason: null },
      { type: 'payment.failed', failureReason: 'cancelled' },
    ]);
    const [row] = await h.db<{ status: string; refund_due: boolean }[]>`
      select status, refund_due from payments where id = ${payment.paymentId}`;
    expect(row).toEqual({ status: 'failed', refund_due: false });
    // Again: the same answer, said to be unchanged (nothing done, nothing audited), no second event.
    expect(view).not.toHaveProperty('unchanged');
    expect(await cancel(payment.paymentId)).toEqual({ ...view, unchanged: true });
    expect(await events(payment.paymentId)).toHaveLength(2);
    // The payer's link now leads to the ended page, never to the card form.
    const start = await requestRpc(h.runtime.nats, h.infra.natsPrefix, Rpc.checkoutStart, {
      token: payment.checkoutToken,
    });
    expect(start).toMatchObject({ formUrl: null, view: { status: 'cancelled' } });
  });

  it('a payer on the card form can no longer pay a cancelled payment', async () => {
    const payment = await h.register();
    const formUrl = await h.toCardForm(payment.checkoutToken);
    expect((await cancel(payment.paymentId)).status).toBe('cancelled');
    await h.payCard(formUrl).catch(() => undefined);
    const order = await orderOf(payment.paymentId);
    // The order registered when the payer opened the checkout is reversed first.
    expect(order.status).toBe(3);
    expect(order.reversedAt).not.toBeNull();
    expect(order.authorizedAt).toBeNull();
    expect((await h.comeBack(payment.paymentId)).status).toBe('cancelled');
  });

  it('paid → 409 with details.status; paid at the card network but not recorded → settled as paid, 409', async () => {
    const paid = await h.register();
    await h.payCard(await h.toCardForm(paid.checkoutToken));
    await h.comeBack(paid.paymentId);
    await expect(cancel(paid.paymentId)).rejects.toMatchObject({
      code: 'PAYMENT_INSTANCE409_NOT_CANCELLABLE',
      details: { status: 'success' },
    });

    const unrecorded = await h.register();
    await h.payCard(await h.toCardForm(unrecorded.checkoutToken)); // the payer never came back
    await expect(cancel(unrecorded.paymentId)).rejects.toMatchObject({
      code: 'PAYMENT_INSTANCE409_NOT_CANCELLABLE',
      details: { status: 'success' },
    });
    expect((await h.get(unrecorded.paymentId)).status).toBe('success');
    const order = await orderOf(unrecorded.paymentId);
    expect([order.status, order.reversedAt, order.refundedAmount]).toEqual([2, null, 0]);
    expect((await events(unrecorded.paymentId)).map((e) => e.type)).toEqual([
      'payment.created',
      'payment.processing',
      'payment.succeeded',
    ]);
  });

  it('expired or failed → 409; another merchant, another mode, an AGENCY attempt or no UUID → 404', async () => {
    const expired = await seed(h.merchant.merchantId, {
      status: 'failed',
      failureReason: 'expired',
    });
    await expect(cancel(expired)).rejects.toMatchObject({
      code: 'PAYMENT_INSTANCE409_NOT_CANCELLABLE',
      details: { status: 'expired' },
    });
    const payment = await h.register();
    const notFound = { code: 'PAYMENT_INSTANCE404_NOT_FOUND' };
    await expect(
      ask(Rpc.paymentsCancel, { merchantId: randomUUID(), mode: 'test', id: payment.paymentId }),
    ).rejects.toMatchObject(notFound);
    await expect(
      ask(Rpc.paymentsCancel, { ...scope(), mode: 'live', id: payment.paymentId }),
    ).rejects.toMatchObject(notFound);
    await expect(cancel('not-a-uuid')).rejects.toMatchObject(notFound);
    const qr = await h.startQr(`QR${randomBytes(10).toString('hex').toUpperCase()}`);
    await expect(cancel(qr.paymentId)).rejects.toMatchObject(notFound);
    expect((await h.get(payment.paymentId)).status).toBe('created');
  });

  it('cancel against a payer paying at the same moment: exactly one outcome, money never lost', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 6; round++) {
      const payment = await h.register();
      const formUrl = await h.toCardForm(payment.checkoutToken);
      const [cancelled] = await Promise.allSettled([
        cancel(payment.paymentId),
        h.payCard(formUrl).then(() => h.comeBack(payment.paymentId)),
      ]);
      const view = await h.get(payment.paymentId);
      const order = await orderOf(payment.paymentId);
      const decided = (await events(payment.paymentId)).filter(
        (e) => e.type === 'payment.succeeded' || e.type === 'payment.failed',
      );
      expect(decided).toHaveLength(1);
      if (cancelled.status === 'fulfilled') {
        expect(view.status).toBe('cancelled');
        expect(decided[0]!.type).toBe('payment.failed');
        // Nothing kept by the card network: never paid, or reversed.
        expect(order.status === 2 && order.refundedAmount < order.amount).toBe(false);
      } else {
        expect(cancelled.reason).toMatchObject({ code: 'PAYMENT_INSTANCE409_NOT_CANCELLABLE' });
        expect(view.status).toBe('success');
        expect([order.status, order.refundedAmount]).toEqual([2, 0]);
      }
      outcomes.push(view.status);
    }
    expect(outcomes.every((s) => s === 'success' || s === 'cancelled')).toBe(true);
  });
});
