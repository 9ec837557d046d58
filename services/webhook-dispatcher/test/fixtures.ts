import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import {
  Buckets,
  partnerDirectoryKey,
  Streams,
  WebhookDeliveryEvent,
  type MerchantScope,
  type PartnerDirectoryEntry,
} from '@dzpay/contracts';
import {
  connectNats,
  connectPostgres,
  partnerSecretOwner,
  sealSecret,
  signingSecretOwner,
  streamName,
  type NatsConnection,
  type Runtime,
  type Sql,
} from '@dzpay/platform';
import { createWebhookHandler, type WebhookEvent } from '@dzpay/partner-sdk';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { loopbackOnlyConnect } from '@dzpay/testkit/loopback-connect';
import type { DispatcherEnv } from '../src/config.ts';
import { startWebhookDispatcher } from '../src/service.ts';

/** How long and how often a test polls for what the dispatcher does on its own time. */
export const POLL = { timeout: 15_000, interval: 50 };

/** The state of the delivery of an event, when there is one. */
export const deliveryState = async (db: Sql, eventId: string) =>
  (await db<{ state: string }[]>`select state from deliveries where event_id = ${eventId}`)[0]
    ?.state;

/** Writes a partner into the directory bucket as the gateway does, secrets sealed. */
export async function registerPartner(
  nc: NatsConnection,
  prefix: string,
  secretsKey: Buffer,
  partner: MerchantScope & {
    apiUrl: string;
    apiSecret: string;
    signingSecret: string;
    /** Where webhooks go instead of `{apiUrl}/webhooks/platform` (a merchant's choice). */
    webhookUrl?: string;
  },
): Promise<void> {
  const kv = await new Kvm(nc).create(streamName(prefix, Buckets.partners));
  const { merchantId, mode } = partner;
  const entry: PartnerDirectoryEntry = {
    merchantId,
    mode,
    apiUrl: partner.apiUrl,
    ...(partner.webhookUrl === undefined ? {} : { webhookUrl: partner.webhookUrl }),
    apiSecretSealed: sealSecret(
      partner.apiSecret,
      secretsKey,
      partnerSecretOwner(merchantId, mode),
    ).toString('base64'),
    signingSecrets: [
      {
        sealed: sealSecret(
          partner.signingSecret,
          secretsKey,
          signingSecretOwner(merchantId, mode),
        ).toString('base64'),
        validUntil: null,
      },
    ],
  };
  await kv.put(partnerDirectoryKey(merchantId, mode), JSON.stringify(entry));
}

export async function deleteBucket(nc: NatsConnection, prefix: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(`KV_${streamName(prefix, Buckets.partners)}`).catch(() => false);
}

/** Every WEBHOOKS event of one delivery, in stream order. */
export async function deliveryEvents(
  nc: NatsConnection,
  prefix: string,
  deliveryId: string,
): Promise<WebhookDeliveryEvent[]> {
  const jsm = await jetstreamManager(nc);
  const stream = streamName(prefix, Streams.webhooks.name);
  const info = await jsm.streams.info(stream);
  const events: WebhookDeliveryEvent[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
    const message = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (message === null) continue;
    const event = WebhookDeliveryEvent.parse(message.json());
    if (event.data.deliveryId === deliveryId) events.push(event);
  }
  return events;
}

/** How the partner answers its nth call (1-based): as the SDK would, or as told. */
export type Answer =
  'sdk' | 'hang' | { status: number; body?: string; headers?: Record<string, string> };

interface PartnerCall {
  at: number;
  headers: IncomingHttpHeaders;
  path: string;
}

export interface Partner {
  url: string;
  /** Every request, in arrival order. */
  calls: PartnerCall[];
  /** The events the SDK verified and handed over. */
  received: WebhookEvent[];
  close(): Promise<void>;
}

/**
 * A real partner HTTP server, verifying with the partner SDK when it answers as `sdk`,
 * on `port` when given (a partner coming up where it was down).
 */
export async function startPartner(
  signingSecret: string,
  answer: (call: number) => Answer = () => 'sdk',
  port = 0,
): Promise<Partner> {
  const calls: PartnerCall[] = [];
  const received: WebhookEvent[] = [];
  const sdk = createWebhookHandler({
    signingSecret,
    onEvent: (event) => {
      received.push(event);
    },
  });
  const server: Server = createServer((request, response) => {
    calls.push({ at: Date.now(), headers: request.headers, path: request.url ?? '' });
    const chosen = answer(calls.length);
    if (chosen === 'sdk') {
      sdk(request, response);
      return;
    }
    request.resume();
    if (chosen === 'hang') return;
    response.writeHead(chosen.status, chosen.headers ?? {}).end(chosen.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    calls,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A merchant of its own whose partner endpoint is in the directory, with its secrets. */
export interface PartnerMerchant {
  scope: MerchantScope;
  signingSecret: string;
  apiSecret: string;
}

/** Registers a new merchant (fresh id and secrets) whose partner endpoint is `apiUrl`. */
export async function registerMerchant(
  nc: NatsConnection,
  prefix: string,
  secretsKey: Buffer,
  apiUrl: string,
  options: { mode?: MerchantScope['mode']; signingSecret?: string; webhookUrl?: string } = {},
): Promise<PartnerMerchant> {
  const scope: MerchantScope = { merchantId: randomUUID(), mode: options.mode ?? 'test' };
  const signingSecret = options.signingSecret ?? `whsig-${randomUUID()}`;
  const apiSecret = `api-${randomUUID()}`;
  await registerPartner(nc, prefix, secretsKey, {
    ...scope,
    apiUrl,
    apiSecret,
    signingSecret,
    ...(options.webhookUrl === undefined ? {} : { webhookUrl: options.webhookUrl }),
  });
  return { scope, signingSecret, apiSecret };
}

/**
 * A new merchant with a partner server of its own answering as told (added to
 * `partners`, which the caller closes). `url` points the endpoint elsewhere.
 */
export async function merchantWithPartner(
  nc: NatsConnection,
  prefix: string,
  secretsKey: Buffer,
  partners: Partner[],
  options: {
    answer?: (call: number) => Answer;
    mode?: MerchantScope['mode'];
    url?: (partner: Partner) => string;
    /** The merchant's chosen webhook URL, given its partner server. */
    webhookUrl?: (partner: Partner) => string;
  } = {},
): Promise<PartnerMerchant & { partner: Partner }> {
  const signingSecret = `whsig-${randomUUID()}`;
  const partner = await startPartner(signingSecret, options.answer);
  partners.push(partner);
  const apiUrl = options.url ? options.url(partner) : partner.url;
  const registered = await registerMerchant(nc, prefix, secretsKey, apiUrl, {
    signingSecret,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.webhookUrl ? { webhookUrl: options.webhookUrl(partner) } : {}),
  });
  return { ...registered, partner };
}

/** A dispatcher running in this process over infra of its own, and what tests reach it by. */
export interface DispatcherTestbed {
  infra: IsolatedInfra;
  nats: NatsConnection;
  /** The webhooks schema. */
  db: Sql;
  /** The secrets key partner entries are sealed with. */
  key: Buffer;
  /** The partner servers a test started; closed with the testbed. */
  partners: Partner[];
  /** Stops the dispatcher and starts another over the same database and streams. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a dispatcher whose partners are dialed on loopback only, with quick ticks and
 * `env` (the retry schedule, say) over the defaults.
 */
export async function startDispatcherTestbed(
  label: string,
  env: Record<string, string>,
): Promise<DispatcherTestbed> {
  const infra = await isolatedInfra(label);
  const key = randomBytes(32);
  const partners: Partner[] = [];
  const start = () =>
    startWebhookDispatcher(
      {
        ...infra.env,
        SECRETS_KEY: key.toString('base64'),
        // The test partners listen on 127.0.0.1.
        PARTNER_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: '1000',
        SCHEDULER_INTERVAL_MS: '50',
        RELAY_INTERVAL_MS: '100',
        ...env,
      },
      { handleSignals: false, partnerConnect: loopbackOnlyConnect([]) },
    );
  let nats: NatsConnection | undefined;
  let service: Runtime<DispatcherEnv> | undefined;
  let db: Sql | undefined;
  async function close() {
    await service?.stop();
    await Promise.all(partners.map((partner) => partner.close()));
    await db?.end();
    if (nats) await deleteBucket(nats, infra.natsPrefix);
    await nats?.close();
    await infra.cleanup();
  }
  try {
    nats = await connectNats(infra.natsUrl, `${label}-test`);
    service = await start();
    db = connectPostgres(infra.databaseUrl, 'webhooks', 2);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    infra,
    nats,
    db,
    key,
    partners,
    async restart() {
      await service?.stop();
      service = undefined;
      service = await start();
    },
    close,
  };
}
