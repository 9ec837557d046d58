import { jetstream } from '@nats-io/jetstream';
import { PaymentEvent, Streams } from '@dzpay/contracts';
import { connectPostgres, streamName, type Sql } from '@dzpay/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentEventWriter } from '../src/store/payment-event-writer.ts';
import { toRecord, type Row } from '../src/store/payment-rows.ts';
import { paymentsRepository } from '../src/store/payments-repository.ts';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

// The relay publishes the outbox by `created_at`, which is when a transaction began, not
// when it committed. Two transactions on one payment can commit in the opposite order of
// their start (the first one paused between BEGIN and its UPDATE: a pause of the process,
// a slow network), and when the relay reads both at once it publishes them in start
// order: the stream then holds the older state last. Consumers put a payment's events in
// order by `data.version`, which the row's own update counts (migration 010).

let h: PaymentsHarness;
let sql: Sql;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-version', {
    // Nothing but this test moves the payment.
    SWEEP_INTERVAL_MS: '86400000',
    RELAY_INTERVAL_MS: '100',
  });
  // Three at once: the held relay lock, the paused transaction and the one that overtakes it.
  sql = connectPostgres(h.infra.databaseUrl, 'payments', 4);
});
afterAll(async () => {
  await sql?.end();
  await h?.stop();
});

/**
 * Runs `during` while the relay's lock is held, as when another replica's relay is
 * publishing a batch: everything committed meanwhile is published together afterwards.
 */
async function withRelayHeld(during: () => Promise<void>): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('dzpay:outbox-relay:' || current_schema()))`;
    await during();
  });
}

/** The events published for a payment, in stream order. */
async function published(paymentId: string, count: number): Promise<PaymentEvent[]> {
  const stream = streamName(h.infra.natsPrefix, Streams.payments.name);
  for (;;) {
    const consumer = await jetstream(h.runtime.nats).consumers.get(stream);
    const events: PaymentEvent[] = [];
    const messages = await consumer.fetch({ max_messages: 1_000, expires: 1_000 });
    for await (const msg of messages) {
      const event = PaymentEvent.parse(msg.json());
      if (event.data.paymentId === paymentId) events.push(event);
    }
    if (events.length >= count) return events;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the order of a payment's events", () => {
  it("may be published out of commit order, and each event's version says which is newer", async () => {
    const { paymentId } = await h.register();
    const repository = paymentsRepository(sql);
    const order: string[] = [];

    await withRelayHeld(async () => {
      let begun!: () => void;
      let resume!: () => void;
      const started = new Promise<void>((resolve) => (begun = resolve));
      const overtaken = new Promise<void>((resolve) => (resume = resolve));
      // Begins first, then waits before touching the payment: its events' created_at is
      // its BEGIN. It expires the attempt once it goes on, as the sweeper does.
      const paused = sql.begin(async (tx) => {
        await tx`select 1`;
        begun();
        await overtaken;
        const [row] = await tx<Row[]>`
          update payments set status = 'failed', failure_reason = 'expired', updated_at = now()
          where id = ${paymentId} and status in ('pending', 'processing')
          returning *`;
        await paymentEventWriter(() => new Date())(tx, 'payment.failed', toRecord(row!));
        order.push('payment.failed');
      });
      await started;
      // Begins second, commits first: the payer pressed pay.
      expect(
        await repository.transition(
          paymentId,
          ['pending'],
          { status: 'processing' },
          'payment.processing',
        ),
      ).not.toBeNull();
      order.push('payment.processing');
      resume();
      await paused;
    });

    expect(order).toEqual(['payment.processing', 'payment.failed']);
    const events = await published(paymentId, 3);
    // The relay's order: start order, the reverse of commit order (the claim holds).
    expect(events.map((event) => event.type)).toEqual([
      'payment.created',
      'payment.failed',
      'payment.processing',
    ]);
    // Each event says where it stands among its payment's states: commit order.
    const version = (type: string) => events.find((event) => event.type === type)!.data.version;
    expect(version('payment.created')).toBe(1);
    expect(version('payment.failed')).toBeGreaterThan(version('payment.processing')!);
    expect(version('payment.processing')).toBeGreaterThan(1);
    const [row] = await sql<{ version: number; status: string }[]>`
      select version, status from payments where id = ${paymentId}`;
    expect(row).toEqual({ version: version('payment.failed'), status: 'failed' });
  });

  it('carries a higher version in every later event, refunds included', async () => {
    const { paymentId, checkoutToken } = await h.register();
    await h.payCard(await h.toCardForm(checkoutToken));
    expect((await h.comeBack(paymentId)).status).toBe('success');
    await h.refund(paymentId, { amount: 50_000 });
    await h.refund(paymentId);
    const events = await published(paymentId, 5);
    expect(events.map((event) => event.type)).toEqual([
      'payment.created',
      'payment.processing',
      'payment.succeeded',
      'payment.refunded',
      'payment.refunded',
    ]);
    const versions = events.map((event) => event.data.version!);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
  });
});
