import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { streamName } from '@dzpay/platform';
import type { Verdict } from './invariants.ts';

/** Streams, KV buckets and durable consumers of the deployment: the names carry its prefix. */
const ofDeployment = (prefix: string) => (name: string) =>
  name.startsWith(streamName(prefix, '')) || name.startsWith(`KV_${streamName(prefix, '')}`);

/**
 * 7. Every JetStream asset (stream, KV bucket, durable consumer) the services made has
 * the number of copies STREAM_REPLICAS says, counted from where the cluster placed them,
 * so a bucket or consumer created with the library's default of one replica is caught.
 */
export async function everyAssetReplicated(deps: {
  natsUrl: string;
  /** A user that may list every stream and consumer (the harness' own, never a service's). */
  auth: { user: string; password: string };
  prefix: string;
  replicas: number;
}): Promise<Verdict> {
  const violations: string[] = [];
  let checked = 0;
  const nc = await connect({
    servers: deps.natsUrl.split(','),
    timeout: 2_000,
    user: deps.auth.user,
    pass: deps.auth.password,
  });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 5_000 });
    const copies = (cluster: { replicas?: unknown[] } | undefined) =>
      1 + (cluster?.replicas?.length ?? 0);
    const mine = ofDeployment(deps.prefix);
    for await (const stream of jsm.streams.list()) {
      const name = stream.config.name;
      if (!mine(name)) continue;
      checked++;
      if (stream.config.num_replicas !== deps.replicas || copies(stream.cluster) !== deps.replicas)
        violations.push(
          `stream ${name}: ${stream.config.num_replicas} replicas configured, ${copies(stream.cluster)} placed, want ${deps.replicas}`,
        );
      for await (const consumer of jsm.consumers.list(name)) {
        // Ephemeral ordered consumers (a KV listing, a watch) live in memory on one node
        // by design, and go when their reader does.
        if (!consumer.config.durable_name) continue;
        checked++;
        if (copies(consumer.cluster) !== deps.replicas)
          violations.push(
            `consumer ${name}/${consumer.name}: ${copies(consumer.cluster)} replicas placed, want ${deps.replicas}`,
          );
      }
    }
    if (checked === 0) violations.push(`no stream of prefix ${deps.prefix} found`);
  } finally {
    await nc.close();
  }
  return { name: 'every JetStream asset has STREAM_REPLICAS copies', checked, violations };
}

/**
 * Whether every durable consumer of the deployment has taken and acknowledged every
 * event of its stream: an event published (its outbox row marked) but not yet read
 * leaves no trace in Postgres, so the settle would call the system quiet while a
 * webhook is still to be enqueued (a consumer catching up after a partition).
 */
export async function consumersCaughtUp(deps: {
  natsUrl: string;
  auth: { user: string; password: string };
  prefix: string;
}): Promise<boolean> {
  const nc = await connect({
    servers: deps.natsUrl.split(','),
    timeout: 2_000,
    user: deps.auth.user,
    pass: deps.auth.password,
  });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 5_000 });
    const mine = ofDeployment(deps.prefix);
    for await (const stream of jsm.streams.list()) {
      if (!mine(stream.config.name) || stream.config.name.startsWith('KV_')) continue;
      for await (const consumer of jsm.consumers.list(stream.config.name)) {
        if (!consumer.config.durable_name) continue;
        if (consumer.num_pending > 0 || consumer.num_ack_pending > 0) return false;
      }
    }
    return true;
  } finally {
    await nc.close();
  }
}
