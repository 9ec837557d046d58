import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import {
  DurableConsumers,
  Rpc,
  Streams,
  type MerchantScope,
  type PaymentEvent,
} from '@dzpay/contracts';
import {
  connectNats,
  prefixed,
  requestRpc,
  streamName,
  type NatsConnection,
  type Runtime,
} from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentEvent, publishPaymentEvent } from '@dzpay/testkit/payment-events';
import type { QrConfigEnv } from '../src/config.ts';
import { startQrConfig } from '../src/service.ts';

let infra: IsolatedInfra;
let qrConfig: Runtime<QrConfigEnv>;
let nats: NatsConnection;
let jsm: JetStreamManager;

const alice = { merchantId: '11111111-1111-4111-8111-111111111111', mode: 'test' as const };
const bob = { merchantId: '22222222-2222-4222-8222-222222222222', mode: 'test' as const };

beforeAll(async () => {
  infra = await isolatedInfra('qr-single-use');
  qrConfig = await startQrConfig(infra.env, { handleSignals: false });
  nats = await connectNats(infra.natsUrl, 'qr-single-use-test');
  jsm = await jetstreamManager(nats);
});
afterAll(async () => {
  await qrConfig?.stop();
  await nats?.close();
  await infra?.cleanup();
});

async function qrCode(scope: MerchantScope = alice): Promise<string> {
  const { token } = await requestRpc(nats, infra.natsPrefix, Rpc.qrCodeCreate, scope);
  return token;
}

async function configure(token: string, singleUse: boolean, scope: MerchantScope = alice) {
  const config = { token, amounts: [1500], expiresAt: null, singleUse };
  return requestRpc(nats, infra.natsPrefix, Rpc.qrConfigSet, { ...scope, ...config });
}

const configOf = (token: string) => requestRpc(nats, infra.natsPrefix, Rpc.qrConfigGet, { token });
const stateOf = async (token: string) => (await configOf(token)).state;

/** A payment.succeeded event as payments publishes it for a static-QR attempt of `version`. */
function succeeded(
  token: string,
  version: number,
  options: {
    scope?: MerchantScope;
    channel?: 'AGENCY' | 'CHECKOUT';
    referenceKind?: 'qr' | 'product' | 'order';
  } = {},
): PaymentEvent {
  const now = new Date().toISOString();
  return paymentEvent(options.scope ?? alice, 'payment.succeeded', {
    reference: token,
    channel: options.channel ?? 'AGENCY',
    amount: 150_000,
    total: 155_000,
    orderId: '0000000042',
    approvalCode: '123456',
    maskedPan: '628058**0009',
    paidAt: now,
    createdAt: now,
    referenceKind: options.referenceKind ?? 'qr',
    epoch: version,
  });
}

/** Publishes like the payments relay (Nats-Msg-Id = event id unless told); the stream sequence. */
async function publish(event: PaymentEvent, msgID = event.id): Promise<number> {
  const ack = await publishPaymentEvent(nats, infra.natsPrefix, event, msgID);
  expect(ack.duplicate).toBe(false);
  return ack.seq;
}

const consumerInfo = () =>
  jsm.consumers.info(
    streamName(infra.natsPrefix, Streams.payments.name),
    DurableConsumers.qrConfigSingleUse.durable,
  );

/** Waits until qr-config acked everything up to the stream sequence (a nak holds it back). */
async function handled(seq: number): Promise<void> {
  await expect
    .poll(async () => (await consumerInfo()).ack_floor.stream_seq)
    .toBeGreaterThanOrEqual(seq);
}

describe('single-use QR configurations', () => {
  it('clears a single-use configuration after its first successful payment', async () => {
    const token = await qrCode();
    const { version } = await configure(token, true);
    await publish(succeeded(token, version));
    await expect.poll(() => stateOf(token)).toBe('none');
  });

  it('keeps a multi-use configuration after a successful payment', async () => {
    const token = await qrCode();
    const { version } = await configure(token, false);
    await handled(await publish(succeeded(token, version)));
    expect(await stateOf(token)).toBe('configured');
  });

  it('is never handed a hosted-checkout payment or a product whose reference equals the QR token', async () => {
    const token = await qrCode();
    const { version } = await configure(token, true);
    const before = (await consumerInfo()).delivered.consumer_seq;
    await publish(succeeded(token, version, { channel: 'CHECKOUT', referenceKind: 'order' }));
    await publish(succeeded(token, 0, { referenceKind: 'product' }));
    // A QR code's payment after both is handled, and is the one event delivered.
    const other = await qrCode();
    await handled(await publish(succeeded(other, (await configure(other, false)).version)));
    expect((await consumerInfo()).delivered.consumer_seq - before).toBe(1);
    expect(await stateOf(token)).toBe('configured');
  });

  it("ignores another merchant's and the other mode's payment with the same token", async () => {
    const token = await qrCode();
    const { version } = await configure(token, true);
    await publish(succeeded(token, version, { scope: bob }));
    await handled(await publish(succeeded(token, version, { scope: { ...alice, mode: 'live' } })));
    expect(await stateOf(token)).toBe('configured');

    await publish(succeeded(token, version));
    await expect.poll(() => stateOf(token)).toBe('none');
  });

  it('never gives a token a version twice, also after the configuration was removed', async () => {
    const token = await qrCode();
    const first = await configure(token, true);
    await requestRpc(nats, infra.natsPrefix, Rpc.qrConfigUnset, { ...alice, token });
    const second = await configure(token, true);
    expect(second.version).toBeGreaterThan(first.version);

    // A late success of the first version (or its event delivered again) leaves the second.
    const event = succeeded(token, first.version);
    await handled(await publish(event));
    await handled(await publish(event, `${event.id}-again`));
    expect(await configOf(token)).toMatchObject({
      state: 'configured',
      config: { version: second.version },
    });
  });

  it('keeps a configuration that replaced the paid one after the attempt started', async () => {
    const token = await qrCode();
    const paid = await configure(token, true);
    const replaced = await configure(token, true);

    await handled(await publish(succeeded(token, paid.version)));
    expect(await configOf(token)).toMatchObject({
      state: 'configured',
      config: { singleUse: true, version: replaced.version },
    });
  });

  it('drops a malformed event without holding back the events behind it', async () => {
    const token = await qrCode();
    await configure(token, true);
    const subject = prefixed(infra.natsPrefix, DurableConsumers.qrConfigSingleUse.filterSubject);
    await jetstream(nats).publish(subject, '{"id":"not an event"', { msgID: randomUUID() });
    await publish(succeeded(token, (await configOf(token)).config!.version));
    await expect.poll(() => stateOf(token)).toBe('none');
  });

  it('handles the payments made while qr-config was stopped once it is back', async () => {
    const token = await qrCode();
    const { version } = await configure(token, true);
    await qrConfig.stop();
    await publish(succeeded(token, version));

    qrConfig = await startQrConfig(infra.env, { handleSignals: false });
    await expect.poll(() => stateOf(token)).toBe('none');
  });
});
