import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consumeEvents, type EventConsumerOptions } from '../src/event-consumer.ts';
import { createLogger } from '../src/logger.ts';
import {
  connectNats,
  ensureStream,
  prefixed,
  streamName,
  type NatsConnection,
} from '../src/nats.ts';
import type { StreamConsumer } from '../src/stream-consumer.ts';

// One durable consumer per reader, filtered on the server: what it is handed, how it
// comes to its filter from an older consumer of the same name, and how it waits for
// events under a stream's former subjects before it narrows.

let infra: IsolatedInfra;
let nc: NatsConnection;
let jsm: JetStreamManager;
const readers: StreamConsumer[] = [];
let streams = 0;

beforeAll(async () => {
  infra = await isolatedInfra('event-consumer');
  nc = await connectNats(infra.natsUrl, 'event-consumer-test');
  jsm = await jetstreamManager(nc);
});
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.stop()));
});
afterAll(async () => {
  await nc?.close();
  await infra?.cleanup();
});

/** A stream of its own per test: `t<n>.events.>`, its former subjects `t<n>.old.>`. */
async function testStream() {
  const root = `t${++streams}`;
  const spec = { name: `T${streams}`, subjects: [`${root}.>`], formerSubjects: [`${root}.old.>`] };
  const name = streamName(infra.natsPrefix, spec.name);
  await ensureStream(nc, infra.natsPrefix, spec);
  const publish = async (subject: string, body: string) =>
    (await jetstream(nc).publish(prefixed(infra.natsPrefix, `${root}.${subject}`), body)).seq;
  return { root, spec, name, publish };
}

/** Reads `stream` through `durable` filtered on `<root>.events.wanted.>`, noting what it is handed. */
async function read(
  stream: Awaited<ReturnType<typeof testStream>>,
  options: Partial<EventConsumerOptions> = {},
) {
  const handed: string[] = [];
  const reader = await consumeEvents({
    nats: nc,
    prefix: infra.natsPrefix,
    logger: createLogger('event-consumer-test', 'silent'),
    stream: stream.spec,
    consumer: { durable: 'reader', filterSubject: `${stream.root}.events.wanted.>` },
    name: 'test',
    retryDelayMs: 100,
    handle: (msg) => {
      handed.push(msg.string());
      return Promise.resolve('handled');
    },
    ...options,
  });
  readers.push(reader);
  return handed;
}

const infoOf = (stream: Awaited<ReturnType<typeof testStream>>) =>
  jsm.consumers.info(stream.name, 'reader');

describe('consumeEvents', () => {
  it('is handed only what its filter selects, each acknowledged once handled', async () => {
    const stream = await testStream();
    const handed = await read(stream);
    await stream.publish('events.other.1', 'other');
    const last = await stream.publish('events.wanted.1', 'wanted');
    await expect.poll(() => handed).toEqual(['wanted']);
    await expect.poll(async () => (await infoOf(stream)).ack_floor.stream_seq).toBe(last);
    const info = await infoOf(stream);
    expect(info.config).toMatchObject({
      filter_subject: prefixed(infra.natsPrefix, `${stream.root}.events.wanted.>`),
      ack_policy: AckPolicy.Explicit,
      max_deliver: -1,
    });
    expect(info.delivered.consumer_seq).toBe(1);
  });

  it('delivers a failed event again, later each time, up to the longest wait', async () => {
    const stream = await testStream();
    const tries: number[] = [];
    await read(stream, {
      retryDelayMs: 200,
      maxRetryDelayMs: 300,
      handle: () => {
        tries.push(Date.now());
        return tries.length < 4 ? Promise.reject(new Error('not yet')) : Promise.resolve('handled');
      },
    });
    await stream.publish('events.wanted.1', 'wanted');
    await expect.poll(() => tries.length, { timeout: 5_000 }).toBe(4);
    const waits = tries.slice(1).map((at, i) => at - tries[i]!);
    expect(waits[0]).toBeGreaterThanOrEqual(190);
    expect(waits[1]).toBeGreaterThanOrEqual(290);
    expect(waits[2]).toBeLessThan(600);
  });

  it('terminates an event its handler cannot read, and goes on', async () => {
    const stream = await testStream();
    const handed = await read(stream, {
      handle: (msg) => {
        handed.push(msg.string());
        return Promise.resolve(msg.string() === 'garbage' ? 'unreadable' : 'handled');
      },
    });
    await stream.publish('events.wanted.1', 'garbage');
    await stream.publish('events.wanted.2', 'good');
    await expect.poll(() => handed).toEqual(['garbage', 'good']);
    await expect.poll(async () => (await infoOf(stream)).num_ack_pending).toBe(0);
    expect((await infoOf(stream)).num_redelivered).toBe(0);
  });

  it('brings an older consumer of its name to its filter from where it stood, skipping nothing', async () => {
    const stream = await testStream();
    // As readers made it before filters: the whole stream, two events acknowledged.
    await jsm.consumers.add(stream.name, {
      durable_name: 'reader',
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
    });
    await stream.publish('events.wanted.1', 'handled before');
    await stream.publish('events.other.1', 'dropped before');
    const older = await jetstream(nc).consumers.get(stream.name, 'reader');
    for (let i = 0; i < 2; i++) (await older.next({ expires: 2_000 }))!.ack();
    await expect.poll(async () => (await infoOf(stream)).ack_floor.stream_seq).toBe(2);
    // Published while no reader ran: one it wants, one it does not.
    await stream.publish('events.wanted.2', 'waiting');
    await stream.publish('events.other.2', 'not wanted');

    const handed = await read(stream);
    await stream.publish('events.wanted.3', 'new');
    // (Set in place, nats-server 2.9's wildcard filter would match nothing: none of these.)
    await expect.poll(() => handed).toEqual(['waiting', 'new']);
    expect((await infoOf(stream)).config.filter_subject).toBe(
      prefixed(infra.natsPrefix, `${stream.root}.events.wanted.>`),
    );
  });

  it('reads the whole stream while an event under its former subjects may reach it, then narrows', async () => {
    const stream = await testStream();
    const quietMs = 1_500;
    await stream.publish('old.event', 'former');
    await stream.publish('events.other.1', 'other');
    const handed = await read(stream, { formerQuietMs: quietMs, narrowCheckMs: 200 });
    // The event under the former subjects is handed over (its handler sorts it), and so,
    // for now, is everything else.
    await expect.poll(() => handed).toEqual(['former', 'other']);
    expect((await infoOf(stream)).config.filter_subject).toBeUndefined();

    // Once it is behind the reader and old enough, the consumer narrows by itself.
    await expect
      .poll(async () => (await infoOf(stream)).config.filter_subject, { timeout: 10_000 })
      .toBe(prefixed(infra.natsPrefix, `${stream.root}.events.wanted.>`));
    await stream.publish('events.other.2', 'dropped by the server');
    await stream.publish('events.wanted.1', 'wanted');
    // Told at once that its consumer was remade, the reader does not wait out a pull.
    await expect.poll(() => handed, { timeout: 1_000 }).toEqual(['former', 'other', 'wanted']);
  });

  it('replays a stream into a consumer made again from the start, whole while it holds former events', async () => {
    const stream = await testStream();
    await stream.publish('old.event', 'former');
    await stream.publish('events.wanted.1', 'wanted');
    const first = await read(stream, { formerQuietMs: 0 });
    await expect.poll(() => first).toEqual(['former', 'wanted']);
    await readers.splice(0)[0]!.stop();

    // A projection that lost its rows: the former event, far behind, is read again too.
    const again = await read(stream, { formerQuietMs: 0, recreateIf: () => Promise.resolve(true) });
    await expect.poll(() => again).toEqual(['former', 'wanted']);
    expect((await infoOf(stream)).config.filter_subject).toBeUndefined();
  });
});
