import { randomBytes } from 'node:crypto';
import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import type { StatusRecord } from '@dzpay/contracts';
import { connectNats, streamName } from '@dzpay/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPartnerShop, type PartnerShop } from './support/partner-shop.ts';
import { CARDS, submitCard } from './support/payer.ts';
import type { Stack } from './support/stack.ts';

/**
 * The status endpoint while the PAYMENTS stream takes nothing (its leader lost, as in a
 * failover): payments' relay keeps its events in the outbox, so the projection misses
 * every attempt opened meanwhile. A reference being paid must still never read free:
 * status checks a free stage against payments' rows (docs/status.md, "Free only when
 * payments agrees"). The stream is made to refuse publishes by capping it at the
 * messages it holds (discard new): the relay's publishes fail until the cap is lifted.
 */

let world: PartnerShop;
let stack: Stack;
let shop: PartnerShop['shop'];
const statusOf = (reference: string) => world.statusOf(reference);

beforeAll(async () => {
  world = await startPartnerShop('status-stream-lag', { STATUS_RATE_LIMIT_PER_MINUTE: '100000' });
  ({ stack, shop } = world);
});
afterAll(() => world?.stop());

const poll = { timeout: 15_000, interval: 100 };

/** A payer opens the reference's page: the attempt is committed once this answers. */
async function open(reference: string): Promise<string> {
  const started = await fetch(
    `${stack.gateway.url}/pay/${shop.id}/${encodeURIComponent(reference)}?mode=test`,
    { method: 'POST', redirect: 'manual' },
  );
  expect(started.status).toBe(303);
  return new URL(started.headers.get('location')!, stack.gateway.url).href.split('?')[0]!;
}

async function pay(checkoutUrl: string, card: { pan: string }): Promise<void> {
  const formUrl = (
    await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })
  ).headers.get('location')!;
  const back = await submitCard(formUrl, card);
  await fetch(back.headers.get('location')!, { redirect: 'manual' });
}

/** Caps PAYMENTS at what it holds, so every publish is refused, until the returned mend. */
async function stallPayments(): Promise<() => Promise<void>> {
  const nc = await connectNats(stack.infra.natsUrl, 'status-stream-lag-test');
  const jsm = await jetstreamManager(nc);
  const name = streamName(stack.infra.natsPrefix, 'PAYMENTS');
  const { config, state } = await jsm.streams.info(name);
  await jsm.streams.update(name, {
    max_msgs: Math.max(state.messages, 1),
    discard: DiscardPolicy.New,
  });
  return async () => {
    await jsm.streams.update(name, { max_msgs: config.max_msgs, discard: config.discard });
    await nc.close();
  };
}

/** The projection has caught up with `reference` once status names this payment without payments' help. */
const projectedAs = (reference: string, stage: StatusRecord['stage']) =>
  expect.poll(async () => (await statusOf(reference)).stage, poll).toBe(stage);

describe('status while the PAYMENTS stream takes nothing', () => {
  it('never calls a reference free while an attempt holds it or paid it', async () => {
    // Declined before the outage: released, and the projection knows it.
    const again = `AGAIN-${randomBytes(4).toString('hex')}`;
    await pay(await open(again), CARDS.insufficientFunds);
    await projectedAs(again, 'released');

    let fresh: string;
    let lockedBy: string | null;
    const mend = await stallPayments();
    try {
      // A new payer of the released reference, and a reference never seen before.
      const reopened = await open(again);
      fresh = `FRESH-${randomBytes(4).toString('hex')}`;
      const paidLater = await open(fresh);

      // Read over and over while the stream refuses the relay's events.
      for (let read = 0; read < 5; read++) {
        expect(await statusOf(again)).toMatchObject({ stage: 'locked', locked: true });
        expect(await statusOf(fresh)).toMatchObject({ stage: 'locked', locked: true });
      }
      lockedBy = (await statusOf(again)).paymentId;

      // Paid while the stream still refuses: paid, from payments' rows.
      await pay(paidLater, CARDS.approved);
      expect(await statusOf(fresh)).toMatchObject({ stage: 'paid', paid: true });

      // Declined again: payments' rows hold nothing, the projection's decline stands.
      await pay(reopened, CARDS.insufficientFunds);
      expect((await statusOf(again)).stage).toBe('released');
    } finally {
      await mend();
    }

    // Once the relay's events flow, the projection catches up: payments' rows never
    // answer a declined attempt, so only the projection names the second decline.
    await expect.poll(async () => (await statusOf(again)).paymentId, poll).toBe(lockedBy);
    expect((await statusOf(again)).stage).toBe('released');
    expect((await statusOf(fresh)).stage).toBe('paid');
  });
});
