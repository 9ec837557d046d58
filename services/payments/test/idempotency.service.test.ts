import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@dzpay/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * An Idempotency-Key is held by the request running it, which renews its lease: a retry
 * never runs the key a second time beside the first, however long the first takes, and
 * takes it over once the first has stopped (or died) without an answer to replay.
 */

const LEASE_MS = 1_000;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-idempotency', {
    IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
    CARDNET_TIMEOUT_MS: '20000',
  });
});
afterEach(async () => {
  await h.control.clearFaults();
});
afterAll(async () => {
  await h?.stop();
});

async function codeOf(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  return error instanceof AppError ? error.code : `no error: ${String(error)}`;
}

describe('an Idempotency-Key', () => {
  it('whose first request is slow to commit answers its retry with that payment, never a second', async () => {
    // The payments table is locked: the first registration's transaction waits 3 leases.
    const locker = await h.db.reserve();
    await locker`begin`;
    await locker`lock table payments.payments in share row exclusive mode`;
    const first = h.register('ORDER-SLOW', 150_000, 'key-slow');
    await sleep(2 * LEASE_MS);
    const retry = h.register('ORDER-SLOW', 150_000, 'key-slow');
    await sleep(LEASE_MS);
    await locker`commit`;
    locker.release();
    const registered = await first;
    expect(await retry).toEqual(registered);
    // Then the first answer is replayed, never a second payment.
    expect(await h.register('ORDER-SLOW', 150_000, 'key-slow')).toEqual(registered);
    const rows = await h.db`select 1 from payments where reference = 'ORDER-SLOW'`;
    expect(rows).toHaveLength(1);
  });

  it('whose request died is taken over once its lease ran out, not before', async () => {
    const { merchantId } = h.merchant;
    const body = { amount: 150_000, currency: 'DZD', reference: 'ORDER-DEAD' };
    const claim = (leaseMs: number) => h.db`
      insert into idempotency_keys (merchant_id, mode, key, fingerprint, owner, lease_until)
      values (${merchantId}, 'test', 'key-dead', ${JSON.stringify(body)},
        gen_random_uuid(), now() + ${leaseMs} * interval '1 millisecond')`;
    // A process claimed the key and died; its lease is still running.
    await claim(60_000);
    const refusal = await h.register('ORDER-DEAD', 150_000, 'key-dead').catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    // Told apart from a reuse with another body: SDKs wait and send it again.
    expect(refusal).toMatchObject({
      code: 'IDEMPOTENCY409_KEY_REUSED',
      details: { inProgress: true },
    });
    await h.db`update idempotency_keys set lease_until = now() - interval '1 second'
               where key = 'key-dead'`;
    const registered = await h.register('ORDER-DEAD', 150_000, 'key-dead');
    expect(await h.register('ORDER-DEAD', 150_000, 'key-dead')).toEqual(registered);
  });

  it('stays bound to its body after a "retry later" answer, and the same body takes it over at once', async () => {
    const payment = await h.register();
    await h.payCard(await h.toCardForm(payment.checkoutToken));
    expect((await h.comeBack(payment.paymentId)).status).toBe('success');
    // The refund cannot read the order (the client tries twice): 503, retry later.
    await h.control.setFaults([
      { operation: 'getOrderStatusExtended', effect: 'unavailable', times: 2 },
    ]);
    expect(await codeOf(h.refund(payment.paymentId, { key: 'refund-later' }))).toBe(
      'SERVICE503_UNAVAILABLE',
    );
    expect(await codeOf(h.refund(payment.paymentId, { key: 'refund-later', amount: 10_000 }))).toBe(
      'IDEMPOTENCY409_KEY_REUSED',
    );
    const refunded = await h.refund(payment.paymentId, { key: 'refund-later' });
    expect(refunded.status).toBe('refunded');
  });

  it('keeps its answer sealed: no checkout token at rest, the same token replayed, a moved answer does not open', async () => {
    const registered = await h.register('ORDER-SEALED', 150_000, 'key-sealed');
    const [row] = await h.db<{ text: string; sealed: Buffer | null }[]>`
      select k::text as text, response_sealed as sealed from idempotency_keys k
      where key = 'key-sealed'`;
    expect(row!.sealed).not.toBeNull();
    // Neither the token nor its checkout URL, in any column.
    expect(row!.text).not.toContain(registered.checkoutToken);
    expect(row!.sealed!.toString('latin1')).not.toContain(registered.checkoutToken);
    expect(await h.register('ORDER-SEALED', 150_000, 'key-sealed')).toEqual(registered);

    // Another key's row with this sealed answer copied in: it is bound to its key.
    const other = await h.register('ORDER-OTHER', 150_000, 'key-other');
    expect(other.checkoutToken).not.toBe(registered.checkoutToken);
    await h.db`update idempotency_keys set response_sealed = ${row!.sealed}
               where key = 'key-other'`;
    expect(await codeOf(h.register('ORDER-OTHER', 150_000, 'key-other'))).toBe('INTERNAL500_ERROR');
  });

  it('is forgotten after 24 hours in small batches, unless its request still runs', async () => {
    const [first, second, third] = [
      await h.register('ORDER-OLD-1', 150_000, 'key-old-1'),
      await h.register('ORDER-OLD-2', 150_000, 'key-old-2'),
      await h.register('ORDER-NEW', 150_000, 'key-new'),
    ];
    expect([first, second, third].every(Boolean)).toBe(true);
    await h.db`update idempotency_keys set created_at = now() - interval '25 hours'
      where key in ('key-old-1', 'key-old-2')`;
    // One of the old ones is still held by a running request.
    await h.db`update idempotency_keys set lease_until = now() + interval '1 minute'
      where key = 'key-old-2'`;
    const { keys } = h.core();
    const dayAgo = new Date(Date.now() - 24 * 3600 * 1000);
    expect(await keys.forget(dayAgo, 10)).toBe(1);
    const left = await h.db<{ key: string }[]>`
      select key from idempotency_keys where key in ('key-old-1', 'key-old-2', 'key-new')
      order by key`;
    expect(left.map((row) => row.key)).toEqual(['key-new', 'key-old-2']);
  });
});
