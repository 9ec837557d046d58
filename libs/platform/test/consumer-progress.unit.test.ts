import type { Consumer, ConsumerInfo } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { consumerProgressWatch } from '../src/consumer-progress.ts';

/** A consumer whose info() answers what the test says (or fails, as with its leader gone). */
function fakeConsumer() {
  const state = { pending: 0, ackPending: 0, ackFloor: 0, answers: true };
  const consumer = {
    info: () => {
      if (!state.answers) return Promise.reject(new Error('timeout'));
      return Promise.resolve({
        num_pending: state.pending,
        num_ack_pending: state.ackPending,
        ack_floor: { stream_seq: state.ackFloor, consumer_seq: state.ackFloor },
      } as ConsumerInfo);
    },
  } as unknown as Consumer;
  return { consumer, state };
}

function setup() {
  let now = 0;
  const watch = consumerProgressWatch({
    stallAfterMs: 30_000,
    checkEveryMs: 60_000,
    clock: () => now,
  });
  const { consumer, state } = fakeConsumer();
  const progress = watch.watch('S', 'c', consumer);
  let reattached = 0;
  progress.onStall(() => reattached++);
  const after = async (ms: number) => {
    now += ms;
    await watch.check();
  };
  return { watch, state, progress, after, reattached: () => reattached };
}

describe('the consumer progress watch', () => {
  it('says degraded the moment the reader loses its leader, however briefly, and clears when it hears it again', async () => {
    const { watch, progress, after } = setup();
    progress.troubled('heartbeats missed');
    // Long before stallAfterMs: a leader's election is seen while it happens.
    await after(1_200);
    await expect(watch.assertMoving()).rejects.toThrow(
      /S\/c out of touch with its leader for 1200 ms \(heartbeats missed\)/,
    );
    progress.troubled('no responders');
    await expect(watch.assertMoving()).rejects.toThrow(/for 1200 ms \(no responders\)/);
    progress.heard();
    await expect(watch.assertMoving()).resolves.toBeUndefined();
    progress.troubled('consumer not found');
    progress.delivered();
    await expect(watch.assertMoving()).resolves.toBeUndefined();
  });

  it('never calls an idle consumer stalled', async () => {
    const { watch, after, reattached } = setup();
    for (let i = 0; i < 10; i++) await after(10_000);
    expect(reattached()).toBe(0);
    await expect(watch.assertMoving()).resolves.toBeUndefined();
  });

  it('calls a consumer stalled when messages wait and nothing moves, re-attaches it, and clears once it moves', async () => {
    const { watch, state, after, reattached } = setup();
    await after(1_000);
    state.pending = 12;
    await after(20_000);
    expect(reattached()).toBe(0);
    await after(11_000);
    expect(reattached()).toBe(1);
    await expect(watch.assertMoving()).rejects.toThrow(/S\/c stalled for 0 s with 12 waiting/);
    expect(watch.states()[0]).toMatchObject({ waiting: 12, stalledSince: 32_000 });
    // Still stuck: stalled on, re-attached again only after another full period.
    await after(10_000);
    expect(reattached()).toBe(1);
    await expect(watch.assertMoving()).rejects.toThrow(/stalled for 10 s/);
    await after(21_000);
    expect(reattached()).toBe(2);
    state.ackFloor = 5;
    state.pending = 7;
    await after(1_000);
    await expect(watch.assertMoving()).resolves.toBeUndefined();
    expect(watch.states()[0]?.stalledSince).toBeNull();
  });

  it('counts a delivered message as progress, even while the ack floor stands', async () => {
    const { watch, state, progress, after, reattached } = setup();
    state.pending = 3;
    for (let i = 0; i < 6; i++) {
      progress.delivered();
      await after(10_000);
    }
    expect(reattached()).toBe(0);
    await expect(watch.assertMoving()).resolves.toBeUndefined();
  });

  it('calls a consumer that gives no answer for the whole period stalled', async () => {
    const { watch, state, after, reattached } = setup();
    await after(1_000);
    state.answers = false;
    await after(31_000);
    expect(reattached()).toBe(1);
    await expect(watch.assertMoving()).rejects.toThrow(/stalled/);
  });
});
