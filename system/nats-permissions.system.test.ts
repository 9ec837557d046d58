import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, PermissionViolationError } from '@nats-io/transport-node';
import {
  Buckets,
  DurableConsumers,
  PaymentEventTypes,
  paymentEventsSubject,
  Rpc,
  Streams,
} from '@dzpay/contracts';
import {
  AppError,
  connectNats,
  consumeEvents,
  createLogger,
  ensureStream,
  prefixed,
  requestRpc,
  serveRpc,
  streamName,
  type NatsConnection,
} from '@dzpay/platform';
import { NATS_USERS, natsRoles, type NatsUser } from '@dzpay/stack/nats-permissions';
import { localNatsUsers, type LocalNatsUsers } from '@dzpay/stack/nats-users';
import { startSecuredNatsServer, type LocalNatsServer } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A nats-server with the generated authorization block (libs/stack/src/nats-permissions.ts),
// and a connection as each service's user, made the way the services make theirs
// (connectNats with NATS_USER/NATS_PASSWORD): what the server lets each role do.

const PREFIX = 'perm';
const logger = createLogger('nats-permissions-test', 'silent');
const scope = { merchantId: randomUUID(), mode: 'test' as const };
const PAYMENTS = streamName(PREFIX, Streams.payments.name);
const succeededSubject = paymentEventsSubject({
  channel: 'AGENCY',
  referenceKind: 'product',
  type: PaymentEventTypes.succeeded,
});
const refundedSubject = paymentEventsSubject({
  channel: 'CHECKOUT',
  referenceKind: 'order',
  type: PaymentEventTypes.refunded,
});

let users: LocalNatsUsers;
let server: LocalNatsServer;
const open: NatsConnection[] = [];

/** A connection as `user`, and the permission violations the server reported to it. */
async function as(user: NatsUser) {
  const nc = await connectNats(server.url, `test-${user}`, users.users[user]);
  open.push(nc);
  const violations: PermissionViolationError[] = [];
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'error' && status.error instanceof PermissionViolationError) {
        violations.push(status.error);
      }
    }
  })();
  // A refused JetStream API request is never answered: time out fast.
  const jsm = () => jetstreamManager(nc, { timeout: 1_500 });
  return { nc, violations, jsm };
}

const deniedPublish = (violations: PermissionViolationError[], subject: string) =>
  expect
    .poll(() => violations.map((v) => `${v.operation} ${v.subject}`))
    .toContain(`publish ${subject}`);

beforeAll(async () => {
  users = localNatsUsers(PREFIX);
  server = await startSecuredNatsServer({
    authorization: users.authorization,
    probe: users.admin,
  });
});

afterAll(async () => {
  await Promise.allSettled(open.map((nc) => nc.close()));
  await server?.stop();
});

describe('a NATS secured with the generated permissions', () => {
  it('refuses a client without a user, and one with a wrong password', async () => {
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toThrow(
      /authorization/i,
    );
    await expect(
      connectNats(server.url, 'intruder', { user: 'gateway', password: 'not-the-password' }),
    ).rejects.toThrow(/authorization/i);
  });

  it('lets the gateway call payments.refund, and refuses receipts the publish', async () => {
    const payments = await as('payments');
    const calls: string[] = [];
    const refund = await serveRpc(
      payments.nc,
      PREFIX,
      Rpc.paymentsRefund,
      (request) => {
        calls.push(request.id);
        return Promise.reject(new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'no such payment'));
      },
      logger,
    );
    // receipts' one call: payments.get (its control, so the refusal below is about the subject).
    const get = await serveRpc(
      payments.nc,
      PREFIX,
      Rpc.paymentsGet,
      (request) => {
        calls.push(`get ${request.id}`);
        return Promise.reject(new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'no such payment'));
      },
      logger,
    );
    try {
      const gateway = await as('gateway');
      await expect(
        requestRpc(gateway.nc, PREFIX, Rpc.paymentsRefund, { ...scope, id: 'from-gateway' }),
      ).rejects.toMatchObject({ code: 'PAYMENT_INSTANCE404_NOT_FOUND' });

      const receipts = await as('receipts');
      await expect(
        requestRpc(receipts.nc, PREFIX, Rpc.paymentsGet, { ...scope, id: 'from-receipts' }),
      ).rejects.toMatchObject({ code: 'PAYMENT_INSTANCE404_NOT_FOUND' });
      await expect(
        requestRpc(
          receipts.nc,
          PREFIX,
          Rpc.paymentsRefund,
          { ...scope, id: 'refund-from-receipts' },
          { timeoutMs: 1_000 },
        ),
      ).rejects.toMatchObject({ code: 'SERVICE503_UNAVAILABLE' });
      await deniedPublish(receipts.violations, prefixed(PREFIX, Rpc.paymentsRefund.subject));
      // The request never reached payments.
      expect(calls).toEqual(['from-gateway', 'get from-receipts']);
    } finally {
      await refund.stop();
      await get.stop();
    }
  });

  it('keeps replies to their user: receipts cannot subscribe to the gateway inbox', async () => {
    const receipts = await as('receipts');
    const spy = receipts.nc.subscribe('_INBOX_gateway.>');
    await expect(spy.closed).resolves.toBeInstanceOf(PermissionViolationError);
  });

  it('lets status and the dispatcher read PAYMENTS, and not the gateway', async () => {
    const payments = await as('payments');
    const stream = { ...Streams.payments, replicas: 1 };
    await ensureStream(payments.nc, PREFIX, stream);
    const subject = prefixed(PREFIX, succeededSubject);
    await jetstream(payments.nc).publish(subject, JSON.stringify({ id: randomUUID() }));

    // status and the dispatcher: each through its own durable consumer, as they read it.
    for (const [user, consumer] of [
      ['status', DurableConsumers.statusPayments],
      ['webhook-dispatcher', DurableConsumers.dispatcherPayments],
    ] as const) {
      const reader = await as(user);
      const got: string[] = [];
      const reading = await consumeEvents({
        nats: reader.nc,
        prefix: PREFIX,
        logger,
        stream,
        consumer,
        name: 'payment',
        retryDelayMs: 1_000,
        handle: (msg) => {
          got.push(msg.subject);
          return Promise.resolve('handled');
        },
      });
      await expect.poll(() => got, { timeout: 5_000 }).toEqual([subject]);
      await reading.stop();
      expect(reader.violations, user).toEqual([]);
    }

    const gateway = await as('gateway');
    const jsm: JetStreamManager = await gateway.jsm();
    await expect(
      jsm.consumers.add(PAYMENTS, { durable_name: 'gateway-spy' }),
      'consumer create',
    ).rejects.toThrow();
    await expect(
      jsm.consumers.info(PAYMENTS, 'status-projection'),
      'consumer info',
    ).rejects.toThrow();
    await expect(jsm.streams.getMessage(PAYMENTS, { seq: 1 }), 'msg get').rejects.toThrow();
    await expect(
      jsm.direct.getMessage(PAYMENTS, { last_by_subj: subject }),
      'direct get',
    ).rejects.toThrow();
    await expect(
      jetstream(gateway.nc, { timeout: 1_500 }).consumers.get(PAYMENTS, 'status-projection'),
      'reading through status consumer',
    ).rejects.toThrow();
    for (const api of [
      `$JS.API.CONSUMER.CREATE.${PAYMENTS}.gateway-spy`,
      `$JS.API.CONSUMER.INFO.${PAYMENTS}.status-projection`,
      `$JS.API.STREAM.MSG.GET.${PAYMENTS}`,
      `$JS.API.DIRECT.GET.${PAYMENTS}.${subject}`,
    ]) {
      await deniedPublish(gateway.violations, api);
    }
    // Nor does a plain subscription see the events as they are published.
    const tap = gateway.nc.subscribe(prefixed(PREFIX, 'payments.events.>'));
    await expect(tap.closed).resolves.toBeInstanceOf(PermissionViolationError);

    // status may not use the dispatcher's consumer (it would take its events away).
    const status = await as('status');
    await expect(
      (await status.jsm()).consumers.info(PAYMENTS, 'webhook-dispatcher'),
    ).rejects.toThrow();
  });

  it('lets only payments publish payment events', async () => {
    const receipts = await as('receipts');
    const subject = prefixed(PREFIX, refundedSubject);
    receipts.nc.publish(subject, '{}');
    await deniedPublish(receipts.violations, subject);
  });

  it('lets the gateway write the partner directory, the dispatcher read it, receipts neither', async () => {
    const bucket = streamName(PREFIX, Buckets.partners);
    const gateway = await as('gateway');
    const kv = await new Kvm(gateway.nc).create(bucket, { history: 1 });
    await kv.put('m1.test', '{"apiUrl":"https://partner.example"}');
    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    expect(keys).toEqual(['m1.test']);

    const dispatcher = await as('webhook-dispatcher');
    const read = await new Kvm(dispatcher.nc).open(bucket);
    expect((await read.get('m1.test'))?.string()).toContain('partner.example');
    dispatcher.nc.publish(`$KV.${bucket}.m1.test`, '{}');
    await deniedPublish(dispatcher.violations, `$KV.${bucket}.m1.test`);

    const receipts = await as('receipts');
    const js = jetstream(receipts.nc, { timeout: 1_500 });
    const denied = await new Kvm(js).open(bucket);
    await expect(denied.get('m1.test')).rejects.toThrow();
    await deniedPublish(receipts.violations, `$JS.API.STREAM.MSG.GET.KV_${bucket}`);
  });
});

describe("the dashboard's user", () => {
  const roles = natsRoles();

  it('asks every operation its pages show, and each service answers into its inbox', async () => {
    const dashboard = await as('dashboard');
    const servers = new Map<NatsUser, Awaited<ReturnType<typeof as>>>();
    expect(roles.dashboard.calls.length).toBeGreaterThan(0);
    for (const name of roles.dashboard.calls) {
      const owner = NATS_USERS.find((user) => roles[user].serves.includes(name))!;
      const server = servers.get(owner) ?? (await as(owner));
      servers.set(owner, server);
      // A queue group, as serveRpc subscribes: the same permission, without the schema.
      const subject = prefixed(PREFIX, Rpc[name].subject);
      const subscription = server.nc.subscribe(subject, {
        queue: subject,
        callback: (_error, msg) => {
          msg.respond(`${owner} answers`);
        },
      });
      await server.nc.flush();
      try {
        const reply = await dashboard.nc.request(subject, '{}', { timeout: 2_000 });
        expect(reply.string(), name).toBe(`${owner} answers`);
      } finally {
        subscription.unsubscribe();
      }
    }
    expect(dashboard.violations).toEqual([]);
    for (const [owner, server] of servers) expect(server.violations, owner).toEqual([]);
  });

  it('cannot publish events, use JetStream, ask what is not its own, or serve', async () => {
    const dashboard = await as('dashboard');
    const event = prefixed(PREFIX, refundedSubject);
    dashboard.nc.publish(event, '{}');
    await deniedPublish(dashboard.violations, event);

    await expect(dashboard.jsm(), 'JetStream account info').rejects.toThrow();
    await deniedPublish(dashboard.violations, '$JS.API.INFO');
    const bucket = streamName(PREFIX, Buckets.partners);
    dashboard.nc.publish(`$KV.${bucket}.m1.test`, '{}');
    await deniedPublish(dashboard.violations, `$KV.${bucket}.m1.test`);

    // The gateway's registrations and the CLI's operations are not the pages'.
    for (const name of ['paymentsRegister', 'paymentsReconcile', 'qrCodeCreate'] as const) {
      expect(roles.dashboard.calls).not.toContain(name);
      const subject = prefixed(PREFIX, Rpc[name].subject);
      dashboard.nc.publish(subject, '{}');
      await deniedPublish(dashboard.violations, subject);
    }

    // Nor can it take payments' requests, or read another user's replies.
    const listen = dashboard.nc.subscribe(prefixed(PREFIX, Rpc.paymentsList.subject));
    await expect(listen.closed).resolves.toBeInstanceOf(PermissionViolationError);
    const spy = dashboard.nc.subscribe('_INBOX_gateway.>');
    await expect(spy.closed).resolves.toBeInstanceOf(PermissionViolationError);
  });
});
