import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@dzpay/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { paymentsRepository } from '../src/store/payments-repository.ts';
import { idempotent } from '../src/store/idempotency.ts';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * A retry takes an Idempotency-Key (or a payment's settlement lease) over only from a
 * try that stopped renewing it: dead (system/idempotency-crash.system.test.ts) or paused
 * past its lease. A paused try wakes up still running; nothing it does after that may
 * reach the merchant or the payment: not a payment inserted under the lost key, not its
 * answer, not its card order written over the one the payer's next click registered.
 */

const LEASE_MS = 1_000;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-idem-takeover', {
    IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
    SETTLE_LEASE_MS: String(LEASE_MS),
    CARDNET_TIMEOUT_MS: '20000',
  });
});
afterEach(async () => {
  await h.control.clearFaults();
  await h.db`drop trigger if exists paused on payments.idempotency_keys`;
  await h.db`drop trigger if exists paused on payments.payments`;
});
afterAll(async () => {
  await h?.stop();
});

/**
 * What the database sees of a process paused (SIGSTOP) while it holds a key and a
 * payment's lease: its renewals stop arriving. They are dropped here (a BEFORE trigger
 * returning null skips the row), so both leases run out while the try itself, in this
 * process, is still waiting on the card network and goes on when that answers.
 */
async function pauseRenewals(owner: string, lease: string) {
  await h.db.unsafe(`
    create or replace function payments.paused_write() returns trigger
    language plpgsql as $$ begin return null; end; $$`);
  await h.db.unsafe(`
    create trigger paused before update on payments.idempotency_keys for each row
    when (old.owner = '${owner}' and new.owner = old.owner and new.response is null)
    execute function payments.paused_write()`);
  await h.db.unsafe(`
    create trigger paused before update on payments.payments for each row
    when (old.settle_lease = '${lease}' and new.settle_lease = old.settle_lease)
    execute function payments.paused_write()`);
}

/** The payer clicks "pay" again while the first click still holds the payment. */
async function retryPay(checkoutToken: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await h.toCardForm(checkoutToken);
    } catch (error) {
      const later = error instanceof AppError && error.code === 'SERVICE503_UNAVAILABLE';
      if (!later || Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

const outcomeOf = (call: Promise<unknown>) =>
  call.then(
    () => 'answered',
    (error: unknown) => (error instanceof AppError ? error.code : String(error)),
  );

describe("a checkout's order registration paused past its lease", () => {
  it("is taken over by the payer's next click; woken up, it writes nothing over the order that click registered", async () => {
    const registered = await h.register(`ORDER-PAUSED-${randomUUID().slice(0, 8)}`);
    // The first click's register.do is held at the card network (only that call).
    await h.control.setFaults([{ operation: 'register', effect: 'hang', times: 1 }]);
    const first = outcomeOf(h.toCardForm(registered.checkoutToken));
    await expect.poll(async () => (await h.control.faults())[0]?.applied).toBe(1);
    const [held] = await h.db<{ settle_lease: string }[]>`
      select settle_lease from payments where id = ${registered.paymentId}`;
    await pauseRenewals(randomUUID(), held!.settle_lease);

    const formUrl = await retryPay(registered.checkoutToken);

    // The first click wakes up: its register.do answers (or is refused as a number reused).
    await h.control.clearFaults();
    expect(await first).not.toBe('answered');
    const [row] = await h.db<{ cardnet_order_id: string; status: string }[]>`
      select cardnet_order_id, status from payments where id = ${registered.paymentId}`;
    expect(row).toEqual({
      cardnet_order_id: new URL(formUrl).searchParams.get('mdOrder'),
      status: 'processing',
    });
    await h.payCard(formUrl);
    expect((await h.comeBack(registered.paymentId)).status).toBe('success');
  });
});

describe('a request that lost its Idempotency-Key to a retry', () => {
  it('inserts no payment under it', async () => {
    const key = `key-lost-${randomUUID().slice(0, 8)}`;
    const { merchantId } = h.merchant;
    // The retry holds the key now.
    await h.db`
      insert into idempotency_keys (merchant_id, mode, key, fingerprint, owner, lease_until)
      values (${merchantId}, 'test', ${key}, 'body', gen_random_uuid(),
        now() + interval '1 minute')`;
    const id = randomUUID();
    const insert = paymentsRepository(h.db).insert(
      {
        id,
        merchantId,
        mode: 'test',
        channel: 'CHECKOUT',
        reference: `ORDER-${key}`,
        referenceKind: 'order',
        epoch: 0,
        merchantName: 'Shop',
        amount: 10_000,
        fee: 0,
        total: 10_000,
        currency: 'DZD',
        language: 'fr',
        status: 'pending',
        successUrl: null,
        failureUrl: null,
        metadata: null,
        checkoutTokenHash: Buffer.from(randomUUID()),
        expiresAt: new Date(Date.now() + 60_000),
        locksReference: false,
        productLabel: null,
      },
      { idempotencyKey: { key, owner: randomUUID() } },
    );
    expect(await outcomeOf(insert)).toBe('IDEMPOTENCY409_KEY_REUSED');
    expect(await h.db`select 1 from payments where id = ${id}`).toHaveLength(0);
    expect(
      await h.db`select 1 from outbox where payload->'data'->>'paymentId' = ${id}`,
    ).toHaveLength(0);
  });

  it('never sends its answer: the key keeps none of it', async () => {
    const key = `key-stale-${randomUUID().slice(0, 8)}`;
    const scope = { merchantId: h.merchant.merchantId, mode: 'test' as const };
    const { keys } = h.core();
    const deps = { keys, logger: h.runtime.logger, leaseMs: LEASE_MS };
    const answer = idempotent(
      deps,
      scope,
      { key, fingerprint: 'body' },
      z.object({ n: z.number() }),
      async () => {
        // Meanwhile a retry took the key over (this request ran past its lease).
        await h.db`update idempotency_keys set owner = gen_random_uuid() where key = ${key}`;
        return { n: 1 };
      },
    );
    expect(await outcomeOf(answer)).toBe('IDEMPOTENCY409_KEY_REUSED');
    const [row] = await h.db<{ response: unknown }[]>`
      select response from idempotency_keys where key = ${key}`;
    expect(row!.response).toBeNull();
  });
});
