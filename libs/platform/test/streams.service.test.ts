import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectNats,
  ensureStream,
  prefixed,
  streamName,
  type NatsConnection,
} from '../src/nats.ts';

let infra: IsolatedInfra;
let nc: NatsConnection;

beforeAll(async () => {
  infra = await isolatedInfra('platform-streams');
  nc = await connectNats(infra.natsUrl, 'streams-test');
});
afterAll(async () => {
  await nc?.close();
  await infra?.cleanup();
});

describe('ensureStream', () => {
  it('creates a prefixed, file-stored stream and is idempotent', async () => {
    const spec = { name: 'PAYMENTS', subjects: ['payments.events.>'] };
    const created = await ensureStream(nc, infra.natsPrefix, spec);
    expect(created.name).toBe(`${infra.natsPrefix}_PAYMENTS`);
    expect(created.subjects).toEqual([`${infra.natsPrefix}.payments.events.>`]);
    expect(created.storage).toBe(StorageType.File);

    const again = await ensureStream(nc, infra.natsPrefix, {
      ...spec,
      subjects: ['payments.events.>', 'payments.audit.>'],
    });
    expect(again.subjects).toHaveLength(2);
    const jsm = await jetstreamManager(nc);
    expect(
      (await jsm.streams.info(streamName(infra.natsPrefix, 'PAYMENTS'))).config.subjects,
    ).toHaveLength(2);
  });

  it('drops a second publish with the same Nats-Msg-Id inside the window', async () => {
    await ensureStream(nc, infra.natsPrefix, { name: 'DEDUP', subjects: ['dedup.>'] });
    const js = jetstream(nc);
    const subject = prefixed(infra.natsPrefix, 'dedup.event');
    const first = await js.publish(subject, '{"n":1}', { msgID: 'event-1' });
    const second = await js.publish(subject, '{"n":1}', { msgID: 'event-1' });
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    expect(second.seq).toBe(first.seq);
    // headers() is what callers use for trace context; it must travel with a publish.
    const h = headers();
    h.set('traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    const third = await js.publish(subject, '{"n":2}', { msgID: 'event-2', headers: h });
    expect(third.seq).toBe(first.seq + 1);
  });
});
