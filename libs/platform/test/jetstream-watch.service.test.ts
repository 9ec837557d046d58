import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startNatsCluster, type LocalNatsCluster } from '@dzpay/testkit/nats-cluster';
import { startNetLab, type NetLab } from '@dzpay/testkit/netlab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionLook, jetStreamWatch } from '../src/jetstream-watch.ts';
import { createLogger } from '../src/logger.ts';

// A NATS node cut from its peers keeps its clients and gives them no JetStream for as long
// as the cut lasts. A service with the watch moves to a node of the majority and
// publishes again before the cut heals; one without it would wait for the heal.

let lab: NetLab;
let cluster: LocalNatsCluster;
let nc: NatsConnection | undefined;

beforeAll(async () => {
  lab = await startNetLab();
  cluster = await startNatsCluster({ size: 3, network: lab });
}, 60_000);
afterAll(async () => {
  await nc?.close();
  await cluster?.stop();
  await lab?.stop();
});

describe('a process on a NATS node cut from its peers', () => {
  it('moves to a node of the majority and publishes again while the cut lasts', async () => {
    const urls = cluster.urls.split(',');
    const admin = await connect({ servers: urls });
    const jsm = await jetstreamManager(admin);
    await jsm.streams.add({ name: 'MOVE', subjects: ['move.>'], num_replicas: 3 });
    await admin.close();

    // Connected to node 1 first, the others known: as NATS_URL lists every node.
    nc = await connect({ servers: urls, noRandomize: true });
    const first = nc.getServer();
    const watch = jetStreamWatch({
      look: connectionLook(nc),
      logger: createLogger('test', 'silent'),
      moveAfterMs: 3_000,
      servers: urls.length,
    });
    const timer = setInterval(() => void watch.check(), 500);
    try {
      await cluster.partition(0, 'from-peers');
      const js = jetstream(nc);
      const deadline = Date.now() + 45_000;
      let published = false;
      while (!published && Date.now() < deadline) {
        published = await js.publish('move.x', 'x', { timeout: 1_000 }).then(
          () => true,
          () => false,
        );
        if (!published) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(published, 'published while node 1 is still cut off').toBe(true);
      expect(nc.getServer()).not.toBe(first);
      // Healthy again where it went (the first look there may still be under way).
      const healthy = Date.now() + 10_000;
      while (
        (await watch.assertAnswering().then(
          () => false,
          () => true,
        )) &&
        Date.now() < healthy
      )
        await new Promise((resolve) => setTimeout(resolve, 250));
      await expect(watch.assertAnswering()).resolves.toBeUndefined();
    } finally {
      clearInterval(timer);
      await cluster.heal();
    }
  }, 90_000);
});
