import { createRequire } from 'node:module';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, type NatsConnection } from '../src/nats.ts';

// patches/@nats-io__nats-core@3.4.0.patch: an answered request must not build an
// error. Unpatched, the client's RequestOne.cancel() makes a RequestError (and captures
// its stack) after every answer, only to reject a promise already resolved: about a
// twentieth of the gateway's CPU in `pnpm bench`. The client reads RequestError off
// its errors module at each use, so a counting subclass put there sees every one made.

let infra: IsolatedInfra;
let nc: NatsConnection;

// The nats-core instance @nats-io/transport-node (and so connectNats) loads.
const transport = createRequire(import.meta.url).resolve('@nats-io/transport-node');
const errors = createRequire(createRequire(transport).resolve('@nats-io/nats-core'))(
  './errors.js',
) as { RequestError: new (...args: unknown[]) => Error; errors: { RequestError: unknown } };

beforeAll(async () => {
  infra = await isolatedInfra('nats-request-cost');
  nc = await connectNats(infra.natsUrl, 'request-cost');
});
afterAll(async () => {
  await nc?.close();
  await infra?.cleanup();
});

describe('a NATS request answered', () => {
  it('builds no RequestError', async () => {
    const subject = `${infra.natsPrefix}.cost.echo`;
    const sub = nc.subscribe(subject, {
      callback: (_, msg) => {
        msg.respond(msg.data);
      },
    });
    await nc.flush();
    const original = errors.RequestError;
    let made = 0;
    const Counting = class extends original {
      constructor(...args: unknown[]) {
        super(...args);
        made++;
      }
    };
    errors.RequestError = Counting;
    errors.errors.RequestError = Counting;
    try {
      for (let i = 0; i < 20; i++) {
        expect((await nc.request(subject, 'ping', { timeout: 2_000 })).string()).toBe('ping');
      }
      // The counter is live: a request nobody answers does build one.
      await expect(nc.request(`${subject}.nobody`, 'ping', { timeout: 500 })).rejects.toThrow();
      expect(made).toBeGreaterThan(0);
      const afterFailure = made;
      for (let i = 0; i < 20; i++) await nc.request(subject, 'ping', { timeout: 2_000 });
      expect(made - afterFailure).toBe(0);
    } finally {
      errors.RequestError = original;
      errors.errors.RequestError = original;
      sub.unsubscribe();
    }
  });
});
