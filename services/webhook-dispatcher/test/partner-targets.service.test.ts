import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MerchantScope } from '@dzpay/contracts';
import {
  connectNats,
  connectPostgres,
  type NatsConnection,
  type Runtime,
  type Sql,
} from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countingServer,
  loopbackOnlyConnect,
  PRIVATE_TARGETS,
  type CountingServer,
  type Dial,
} from '@dzpay/testkit/loopback-connect';
import type { DispatcherEnv } from '../src/config.ts';
import { TARGET_REFUSED } from '../src/domain/attempt.ts';
import { startWebhookDispatcher } from '../src/service.ts';
import { paymentEvent, publishPaymentEvent } from '@dzpay/testkit/payment-events';
import { deleteBucket, POLL, registerMerchant } from './fixtures.ts';

// Webhooks go through the guarded partner client in both modes. Its connections are
// opened by loopbackOnlyConnect: nothing leaves 127.0.0.1 and ::1.
let infra: IsolatedInfra;
let nats: NatsConnection;
let db: Sql;
let v4: CountingServer;
let v6: CountingServer;
let posts = 0;
const key = randomBytes(32);
const MODES = ['test', 'live'] as const;

beforeAll(async () => {
  infra = await isolatedInfra('dispatcher-partner-targets');
  nats = await connectNats(infra.natsUrl, 'dispatcher-partner-targets-test');
  db = connectPostgres(infra.databaseUrl, 'webhooks', 2);
  const partner = (request: IncomingMessage, response: ServerResponse) => {
    posts += 1;
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
  };
  v4 = await countingServer('127.0.0.1', partner);
  v6 = await countingServer('::1', partner);
});
afterAll(async () => {
  await db?.end();
  if (nats) await deleteBucket(nats, infra.natsPrefix);
  await nats?.close();
  await Promise.all([v4?.close(), v6?.close()]);
  await infra?.cleanup();
});

const portOf = (target: (typeof PRIVATE_TARGETS)[number]) =>
  target.loopback === '::1' ? v6.port : v4.port;
const connections = () => v4.connections() + v6.connections();
const cases = PRIVATE_TARGETS.flatMap((target) => MODES.map((mode) => ({ ...target, mode })));

/** Sends a payment outcome of a merchant whose partner is at `apiUrl`; its delivery, once final. */
async function deliver(apiUrl: string, mode: MerchantScope['mode']) {
  const { scope } = await registerMerchant(nats, infra.natsPrefix, key, apiUrl, { mode });
  const event = paymentEvent(scope, 'payment.succeeded');
  await publishPaymentEvent(nats, infra.natsPrefix, event);
  const final = async () => {
    const [row] = await db<{ state: string; error: string | null }[]>`
      select d.state, a.error from deliveries d
      left join delivery_attempts a on a.delivery_id = d.id
      where d.event_id = ${event.id} and d.state in ('success', 'fail')`;
    return row;
  };
  await expect.poll(final, POLL).toBeDefined();
  return (await final())!;
}

async function startWith(allow: boolean, dials: Dial[]): Promise<Runtime<DispatcherEnv>> {
  return startWebhookDispatcher(
    {
      ...infra.env,
      SECRETS_KEY: key.toString('base64'),
      PARTNER_ALLOW_PRIVATE_TARGETS: String(allow),
      // One attempt: the outcome of each case is final at once.
      WEBHOOK_RETRY_SCHEDULE_MS: '0',
      WEBHOOK_TIMEOUT_MS: '2000',
      SCHEDULER_INTERVAL_MS: '50',
      RELAY_INTERVAL_MS: '100',
    },
    { handleSignals: false, partnerConnect: loopbackOnlyConnect(dials) },
  );
}

describe('webhooks as deployed (private targets refused)', () => {
  let service: Runtime<DispatcherEnv>;
  const dials: Dial[] = [];
  beforeAll(async () => {
    service = await startWith(false, dials);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it.each(cases)(
    'refuses a $mode endpoint at $host: failed at once, no connection',
    async (target) => {
      const before = connections();
      const delivery = await deliver(`http://${target.host}:${portOf(target)}/p`, target.mode);
      expect(delivery).toEqual({ state: 'fail', error: TARGET_REFUSED });
      expect(connections()).toBe(before);
      expect(dials.filter((dial) => dial.dialed)).toEqual([]);
    },
  );
});

describe('webhooks on a developer’s machine (PARTNER_ALLOW_PRIVATE_TARGETS=true)', () => {
  let service: Runtime<DispatcherEnv>;
  const dials: Dial[] = [];
  beforeAll(async () => {
    service = await startWith(true, dials);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it.each(cases)('lets a $mode endpoint at $host through', async (target) => {
    const before = connections();
    const postsBefore = posts;
    const dialsBefore = dials.length;
    const delivery = await deliver(`http://${target.host}:${portOf(target)}/p`, target.mode);
    const seen = dials.slice(dialsBefore);
    if (target.loopback) {
      expect(delivery).toEqual({ state: 'success', error: null });
      expect(posts).toBe(postsBefore + 1);
      // Dialed (or a kept-alive socket to the same host reused).
      expect(seen.every((dial) => dial.dialed)).toBe(true);
    } else {
      // Allowed by the dispatcher, stopped by the test's connect function: never dialed.
      expect(delivery.state).toBe('fail');
      expect(delivery.error).toMatch(/not loopback, not dialed/);
      expect(connections()).toBe(before);
      expect(seen.map((dial) => dial.dialed)).toEqual([false]);
    }
  });
});
