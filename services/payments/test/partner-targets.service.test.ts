import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Kvm } from '@nats-io/kv';
import {
  partnerDirectoryKey,
  Rpc,
  type MerchantScope,
  type PartnerDirectoryEntry,
} from '@dzpay/contracts';
import {
  AppError,
  connectNats,
  partnerBucketName,
  partnerSecretOwner,
  requestRpc,
  sealSecret,
  type NatsConnection,
  type Runtime,
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
import type { PaymentsEnv } from '../src/config.ts';
import { startPayments } from '../src/service.ts';

// Payments' product lookups go through the guarded partner client, whatever the mode.
// Its connections are opened by loopbackOnlyConnect: nothing leaves 127.0.0.1 and ::1.
let infra: IsolatedInfra;
let nats: NatsConnection;
let v4: CountingServer;
let v6: CountingServer;
const key = randomBytes(32);
const asked: IncomingHttpHeaders[] = [];
const MODES = ['test', 'live'] as const;

beforeAll(async () => {
  infra = await isolatedInfra('payments-partner-targets');
  nats = await connectNats(infra.natsUrl, 'partner-targets-test');
  const partner = (request: IncomingMessage, response: ServerResponse) => {
    asked.push(request.headers);
    request.resume();
    const reference = decodeURIComponent((request.url ?? '').replace(/^\/api\//, ''));
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ reference, amount: 1500.5, currency: 'DZD', label: 'Livre' }));
  };
  v4 = await countingServer('127.0.0.1', partner);
  v6 = await countingServer('::1', partner);
});
afterAll(async () => {
  if (nats) {
    const kv = await new Kvm(nats).open(partnerBucketName(infra.natsPrefix));
    await kv.destroy().catch(() => false);
    await nats.close();
  }
  await Promise.all([v4?.close(), v6?.close()]);
  await infra?.cleanup();
});

/** A merchant whose partner server in `mode` is `apiUrl`, published as the gateway does. */
async function merchantAt(apiUrl: string, mode: MerchantScope['mode']): Promise<MerchantScope> {
  const scope = { merchantId: randomUUID(), mode };
  const kv = await new Kvm(nats).create(partnerBucketName(infra.natsPrefix));
  const entry: PartnerDirectoryEntry = {
    ...scope,
    apiUrl,
    apiSecretSealed: sealSecret(
      `api-secret-${scope.merchantId}`,
      key,
      partnerSecretOwner(scope.merchantId, mode),
    ).toString('base64'),
    signingSecrets: [],
  };
  await kv.put(partnerDirectoryKey(scope.merchantId, mode), JSON.stringify(entry));
  return scope;
}

const lookup = (merchant: MerchantScope, reference = 'BOOK-1') =>
  requestRpc(
    nats,
    infra.natsPrefix,
    Rpc.productLookup,
    { merchant, reference },
    { timeoutMs: 15_000 },
  );
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: unknown) => (error instanceof AppError ? error.code : String(error)),
  );
const portOf = (target: (typeof PRIVATE_TARGETS)[number]) =>
  target.loopback === '::1' ? v6.port : v4.port;
const connections = () => v4.connections() + v6.connections();
const cases = PRIVATE_TARGETS.flatMap((target) => MODES.map((mode) => ({ ...target, mode })));

async function startWith(allow: boolean, dials: Dial[]): Promise<Runtime<PaymentsEnv>> {
  return startPayments(
    {
      ...infra.env,
      SECRETS_KEY: key.toString('base64'),
      PARTNER_ALLOW_PRIVATE_TARGETS: String(allow),
    },
    { handleSignals: false, partnerConnect: loopbackOnlyConnect(dials) },
  );
}

describe('product lookups as deployed (private targets refused)', () => {
  let payments: Runtime<PaymentsEnv>;
  const dials: Dial[] = [];
  beforeAll(async () => {
    payments = await startWith(false, dials);
  });
  afterAll(async () => {
    await payments?.stop();
  });

  it.each(cases)(
    'refuses a $mode endpoint at $host: partner unavailable, no connection',
    async (target) => {
      const before = connections();
      const merchant = await merchantAt(`http://${target.host}:${portOf(target)}/api`, target.mode);
      expect(await codeOf(lookup(merchant))).toBe('PARTNER503_UNAVAILABLE');
      expect(connections()).toBe(before);
      expect(dials.filter((dial) => dial.dialed)).toEqual([]);
    },
  );

  it('refuses an attempt on a product at a private target the same way, and opens none', async () => {
    const merchant = await merchantAt(`http://127.0.0.1:${v4.port}/api`, 'live');
    const started = requestRpc(
      nats,
      infra.natsPrefix,
      Rpc.attemptStart,
      {
        merchant: {
          ...merchant,
          name: 'Shop',
          feeDzd: 0,
          minAmount: 5_000,
          maxAmount: 100_000_000,
          hasWallet: true,
        },
        reference: 'BOOK-2',
        language: 'fr',
        source: { kind: 'product' },
      },
      { timeoutMs: 15_000 },
    );
    expect(await codeOf(started)).toBe('PARTNER503_UNAVAILABLE');
    expect(connections()).toBe(0);
  });
});

describe('product lookups on a developer’s machine (PARTNER_ALLOW_PRIVATE_TARGETS=true)', () => {
  let payments: Runtime<PaymentsEnv>;
  const dials: Dial[] = [];
  beforeAll(async () => {
    payments = await startWith(true, dials);
  });
  afterAll(async () => {
    await payments?.stop();
  });

  it.each(cases)('lets a $mode endpoint at $host through', async (target) => {
    const before = connections();
    const requestsBefore = asked.length;
    const dialsBefore = dials.length;
    const merchant = await merchantAt(`http://${target.host}:${portOf(target)}/api`, target.mode);
    if (target.loopback) {
      expect(await lookup(merchant)).toMatchObject({ reference: 'BOOK-1', amount: 1500.5 });
      // Asked once (over a kept-alive connection when one is open to the same host).
      expect(asked.length).toBe(requestsBefore + 1);
      // The secret came out of the directory, not out of the message.
      expect(asked.at(-1)?.authorization).toBe(`Bearer api-secret-${merchant.merchantId}`);
    } else {
      // Allowed by payments, stopped by the test's connect function: never dialed.
      expect(await codeOf(lookup(merchant))).toBe('PARTNER503_UNAVAILABLE');
      expect(connections()).toBe(before);
      expect(asked.length).toBe(requestsBefore);
    }
    // The test's connect saw the target (unless a kept-alive socket was reused).
    const seen = dials.slice(dialsBefore);
    if (target.loopback) expect(seen.every((dial) => dial.dialed)).toBe(true);
    else expect(seen.map((dial) => dial.dialed)).toEqual([false]);
  });

  it('answers "no payment page" for a merchant without a partner server in the directory', async () => {
    const merchant = { merchantId: randomUUID(), mode: 'test' as const };
    expect(await codeOf(lookup(merchant))).toBe('CHECKOUT404_NOT_FOUND');
  });
});
