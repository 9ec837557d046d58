import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsCluster, type LocalNatsCluster } from '../src/nats-cluster.ts';
import { startNetLab, type NetLab } from '../src/netlab.ts';

// The network lab the cluster campaign partitions (docs/reliability.md): a NATS node cut
// from its peers keeps its clients and loses its quorum; the majority elects and goes on;
// nothing acknowledged is lost when the cut heals. And one client's own address can be
// cut while another client of the same node keeps talking.

let lab: NetLab;
let cluster: LocalNatsCluster;
const open: NatsConnection[] = [];

beforeAll(async () => {
  lab = await startNetLab();
  cluster = await startNatsCluster({ size: 3, network: lab });
}, 60_000);
afterAll(async () => {
  await Promise.allSettled(open.map((nc) => nc.close()));
  await cluster?.stop();
  await lab?.stop();
});

async function client(servers: string[]): Promise<NatsConnection> {
  const nc = await connect({ servers, timeout: 2_000 });
  open.push(nc);
  return nc;
}

async function publishes(nc: NatsConnection, subject: string): Promise<boolean> {
  return jetstream(nc)
    .publish(subject, 'x', { timeout: 1_000 })
    .then(
      () => true,
      () => false,
    );
}

async function eventually(what: string, check: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a NATS node cut from its peers', () => {
  it('loses its quorum while the majority elects and goes on; nothing acknowledged is lost', async () => {
    const urls = cluster.urls.split(',');
    const admin = await client(urls);
    const jsm = await jetstreamManager(admin);
    await jsm.streams.add({ name: 'CUT', subjects: ['cut.>'], num_replicas: 3 });
    const leader = (await jsm.streams.info('CUT')).cluster!.leader!;
    const cutIndex = cluster.nodes.findIndex((node) => node.name === leader);
    const onCut = await client([urls[cutIndex]!]);
    const onMajority = await client([urls[(cutIndex + 1) % 3]!]);
    let acknowledged = 0;
    for (let i = 0; i < 5; i++) if (await publishes(onMajority, 'cut.before')) acknowledged++;
    expect(acknowledged).toBe(5);

    await cluster.partition(cutIndex, 'from-peers');
    // The majority elects a new leader (after Raft's election timeout) and takes writes.
    await eventually('the majority takes writes', () => publishes(onMajority, 'cut.during'));
    acknowledged++;
    // The cut node's clients are still connected, and get nothing written.
    expect(onCut.isClosed()).toBe(false);
    expect(await publishes(onCut, 'cut.during')).toBe(false);

    await cluster.heal();
    await cluster.waitForLeaders(60_000);
    await eventually('the healed node takes writes again', () => publishes(onCut, 'cut.after'));
    acknowledged++;
    const state = (await jsm.streams.info('CUT')).state;
    expect(state.messages).toBeGreaterThanOrEqual(acknowledged);
  }, 120_000);
});

describe('a client address cut alone', () => {
  it('silences that client while another client of the same node keeps talking', async () => {
    const host = cluster.hosts[0]!;
    const alias = await lab.alias(host, 7);
    const viaAlias = await client([`nats://${alias}:4222`]);
    const viaBase = await client([`nats://${host.address}:4222`]);
    await viaAlias.flush();

    const mend = await lab.cutAddress(alias);
    const flushed = await Promise.race([
      viaAlias.flush().then(() => 'answered'),
      new Promise((resolve) => setTimeout(() => resolve('silent'), 1_500)),
    ]);
    expect(flushed).toBe('silent');
    await expect(viaBase.flush()).resolves.toBeUndefined();

    await mend();
    await eventually('the healed client is answered', () =>
      viaAlias.flush().then(
        () => true,
        () => false,
      ),
    );
  }, 60_000);
});
