import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { MerchantScope } from '@dzpay/contracts';
import { connectNats, connectPostgres, type NatsConnection, type Sql } from '@dzpay/platform';
import {
  isolatedInfra,
  spawnService,
  type IsolatedInfra,
  type ServiceProcess,
} from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentEvent, publishPaymentEvent } from '@dzpay/testkit/payment-events';
import { deleteBucket, registerPartner } from './fixtures.ts';

const DISPATCHER_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const EVENTS = 30;
/** How long the partner takes to answer each webhook. */
const PARTNER_DELAY_MS = 500;

let infra: IsolatedInfra;
let nats: NatsConnection;
let db: Sql;
let dispatcher: ServiceProcess | undefined;
let partner: Server;
/** Every X-Event-Id the partner was sent, in arrival order, duplicates included. */
const received: string[] = [];

const key = randomBytes(32);
const dispatcherEnv = () => ({
  ...infra.env,
  SECRETS_KEY: key.toString('base64'),
  // The test partners listen on 127.0.0.1.
  PARTNER_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE_MS: '0,300,300,300',
  WEBHOOK_TIMEOUT_MS: '2000',
  SCHEDULER_INTERVAL_MS: '50',
  RELAY_INTERVAL_MS: '100',
  // Payment events taken but not yet enqueued when the process dies come back soon.
  INTAKE_ACK_WAIT_MS: '2000',
});

beforeAll(async () => {
  infra = await isolatedInfra('webhook-dispatcher-crash');
  nats = await connectNats(infra.natsUrl, 'webhook-dispatcher-crash-test');
  db = connectPostgres(infra.databaseUrl, 'webhooks', 2);
  // A slow partner: records the event id at once, answers `{"success": true}` later.
  partner = createServer((request, response) => {
    received.push(String(request.headers['x-event-id']));
    request.resume();
    setTimeout(() => {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: true }));
    }, PARTNER_DELAY_MS);
  });
  await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  dispatcher?.kill('SIGKILL');
  await dispatcher?.exited();
  partner?.closeAllConnections();
  await new Promise((resolve) => partner?.close(resolve));
  await db?.end();
  if (nats) await deleteBucket(nats, infra.natsPrefix);
  await nats?.close();
  await infra?.cleanup();
});

describe('the dispatcher killed with SIGKILL mid-delivery', () => {
  it('delivers every outcome at least once after a restart, duplicates with the same event id', async () => {
    dispatcher = await spawnService(DISPATCHER_MAIN, dispatcherEnv());
    const scope: MerchantScope = { merchantId: randomUUID(), mode: 'test' };
    const { port } = partner.address() as AddressInfo;
    await registerPartner(nats, infra.natsPrefix, key, {
      ...scope,
      apiUrl: `http://127.0.0.1:${port}`,
      apiSecret: `api-${randomUUID()}`,
      signingSecret: `whsig-${randomUUID()}`,
    });

    const published: string[] = [];
    for (let i = 0; i < EVENTS; i += 1) {
      const event = paymentEvent(scope, i % 3 === 0 ? 'payment.failed' : 'payment.succeeded');
      published.push(event.id);
      await publishPaymentEvent(nats, infra.natsPrefix, event);
    }

    // Mid-way: some delivered, some in flight at the partner, the rest still due.
    await expect
      .poll(() => received.length, { timeout: 20_000, interval: 20 })
      .toBeGreaterThanOrEqual(8);
    dispatcher.kill('SIGKILL');
    expect(await dispatcher.exited()).toMatchObject({ signal: 'SIGKILL' });
    const beforeRestart = new Set(received);
    expect(beforeRestart.size).toBeLessThan(EVENTS);

    dispatcher = await spawnService(DISPATCHER_MAIN, dispatcherEnv());
    await expect
      .poll(() => new Set(received).size, { timeout: 45_000, interval: 100 })
      .toBe(EVENTS);
    await expect
      .poll(
        async () =>
          (
            await db<{ state: string; n: number }[]>`
              select state, count(*)::int as n from deliveries group by state`
          ).map((row) => [row.state, row.n]),
        { timeout: 30_000, interval: 100 },
      )
      .toEqual([['success', EVENTS]]);

    // At least once, and a duplicate is only ever an event id that was published.
    // The webhooks in flight at the kill (the partner had them, had not answered) went out
    // again: there are duplicates, and they carry their original's event id.
    expect(received.length).toBeGreaterThan(EVENTS);
    expect(new Set(received)).toEqual(new Set(published));
    expect(
      await db<{ n: number }[]>`select count(distinct event_id)::int as n from deliveries`,
    ).toEqual([{ n: EVENTS }]);
  });
});
