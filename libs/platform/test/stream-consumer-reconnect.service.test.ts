import { jetstream } from '@nats-io/jetstream';
import { startNatsServer, type LocalNatsServer } from '@dzpay/testkit/servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { durableConsumer } from '../src/durable-consumer.ts';
import { createLogger } from '../src/logger.ts';
import { connectNats, type NatsConnection } from '../src/nats.ts';
import { consumeStream } from '../src/stream-consumer.ts';

// A reader whose NATS node went away and came back pulls anew at once, instead of the
// library's own check that, during a cluster's election, waits a whole pull expiry
// (docs/benchmarks.md, failover). One server of our own, killed and restarted.
let server: LocalNatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats(server.url, 'reconnect-test');
}, 30_000);
afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

describe('consumeStream after a reconnect', () => {
  it('ends its pull and pulls anew, then reads what comes next', async () => {
    const stream = { name: 'R', subjects: ['r.>'] };
    const consumer = await durableConsumer({
      nats: nc,
      prefix: 'rc',
      stream,
      durable: 'reader',
      ackWaitMs: 5_000,
    });
    const lines: string[] = [];
    const logger = createLogger('reconnect-test', 'info', {
      write: (line: string) => void lines.push((JSON.parse(line) as { msg: string }).msg),
    });
    const got: string[] = [];
    const reader = consumeStream({
      name: 'reconnect test',
      consumer,
      logger,
      retryDelayMs: 5_000,
      handle: (msg) => {
        got.push(msg.string());
        msg.ack();
        return Promise.resolve();
      },
    });
    const js = jetstream(nc);
    await js.publish('rc.r.one', 'before');
    await expect.poll(() => got, { timeout: 5_000 }).toEqual(['before']);

    await server.kill();
    await server.restart();
    await expect
      .poll(() => lines, { timeout: 15_000, interval: 100 })
      .toContain('reconnect test consumer pulls anew after a reconnect');
    await js.publish('rc.r.two', 'after');
    await expect.poll(() => got, { timeout: 5_000 }).toEqual(['before', 'after']);
    expect(lines).not.toContain('reconnect test consumer ended, restarting');
    await reader.stop();
  }, 60_000);
});
