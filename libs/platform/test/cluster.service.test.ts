import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { startNatsCluster, type LocalNatsCluster } from '@dzpay/testkit/nats-cluster';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { bindMetrics, platformMetrics } from '../src/metrics.ts';
import { ensureDurableConsumer } from '../src/durable-consumer.ts';
import { consumeEvents } from '../src/event-consumer.ts';
import { connectNats, ensureStream, keepReplicas, type NatsConnection } from '../src/nats.ts';

// A 3-node JetStream cluster of our own (Debian's nats-server on loopback): what the
// production overlay runs, with one node killed.
let cluster: LocalNatsCluster;
const connections: NatsConnection[] = [];
const connect = async (name: string) => {
  const nc = await connectNats(cluster.urls, name);
  connections.push(nc);
  return nc;
};

beforeAll(async () => {
  cluster = await startNatsCluster({ size: 3 });
}, 60_000);
afterAll(async () => {
  await Promise.allSettled(connections.map((nc) => nc.close()));
  await cluster?.stop();
});

describe('on a 3-node JetStream cluster', () => {
  it('streams, their durable consumers and a KV bucket scaled after the fact keep 3 copies', async () => {
    const nc = await connect('replicas');
    const stream = { name: 'S', subjects: ['s.>'], replicas: 3 };
    await ensureStream(nc, 'r', stream);
    await ensureDurableConsumer({
      nats: nc,
      prefix: 'r',
      stream,
      consumer: { durable: 'reader', filterSubject: 's.events.>' },
      ackWaitMs: 5_000,
      logger: createLogger('cluster-test', 'silent'),
      formerQuietMs: 0,
    });
    // A bucket made with the library's default of one copy, as the gateway once did.
    await new Kvm(nc).create('r_B', { history: 1 });
    await keepReplicas(nc, 'KV_r_B', 3);
    const jsm = await jetstreamManager(nc);
    const copies = (cluster?: { replicas?: unknown[] }) => 1 + (cluster?.replicas?.length ?? 0);
    expect(copies((await jsm.streams.info('r_S')).cluster)).toBe(3);
    expect(copies((await jsm.consumers.info('r_S', 'reader')).cluster)).toBe(3);
    await expect
      .poll(async () => copies((await jsm.streams.info('KV_r_B')).cluster), { timeout: 15_000 })
      .toBe(3);
  }, 30_000);

  it("a durable consumer keeps delivering when its leader's node is killed, losing nothing", async () => {
    const nc = await connect('reader');
    const publisher = await connect('publisher');
    const registry = new Registry();
    const metrics = platformMetrics(registry, {
      consumerStallMs: 10_000,
      logger: createLogger('cluster-test', 'silent'),
    });
    bindMetrics(nc, metrics);
    const stream = { name: 'K', subjects: ['k.>'], replicas: 3 };
    const got = new Set<string>();
    const reader = await consumeEvents({
      nats: nc,
      prefix: 'c',
      stream,
      consumer: { durable: 'reader' },
      ackWaitMs: 5_000,
      name: 'cluster test',
      logger: createLogger('cluster-test', 'silent'),
      retryDelayMs: 200,
      handle: (msg) => {
        got.add(msg.string());
        return Promise.resolve('handled');
      },
    });
    const js = jetstream(publisher);
    const sent: string[] = [];
    const publish = async (n: number) => {
      // A publish in flight when the node dies times out: sent again, as the outbox does.
      for (;;) {
        try {
          await js.publish('c.k.event', String(n), { msgID: `m-${n}`, timeout: 2_000 });
          sent.push(String(n));
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    for (let n = 0; n < 20; n++) await publish(n);
    await expect.poll(() => got.size, { timeout: 10_000 }).toBe(20);

    const jsm = await jetstreamManager(publisher);
    const leader = (await jsm.consumers.info('c_K', 'reader')).cluster?.leader;
    const index = cluster.nodes.findIndex((node) => node.name === leader);
    expect(index).toBeGreaterThanOrEqual(0);
    await cluster.kill(index);
    for (let n = 20; n < 60; n++) await publish(n);
    // The pull request parked at the dead leader is lost without an error: the reader
    // must find the new leader by itself, well before the node comes back.
    await expect.poll(() => got.size, { timeout: 25_000, interval: 200 }).toBe(60);
    // Had it stalled (the watch re-attaches after 10 s), readiness says so until it moves.
    const moving = () =>
      metrics.consumerProgress.assertMoving().then(
        () => true,
        () => false,
      );
    await expect.poll(moving, { timeout: 15_000 }).toBe(true);

    await cluster.restart(index);
    await cluster.waitForLeaders(30_000);
    for (let n = 60; n < 70; n++) await publish(n);
    await expect.poll(() => got.size, { timeout: 15_000 }).toBe(70);
    expect([...got].sort()).toEqual([...sent].sort());
    await reader.stop();
    metrics.consumerProgress.stop();
  }, 120_000);
});
