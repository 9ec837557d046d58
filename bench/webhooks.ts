import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import {
  Buckets,
  PaymentEventTypes,
  partnerDirectoryKey,
  subjectOfEvent,
  type MerchantScope,
  type PartnerDirectoryEntry,
} from '@dzpay/contracts';
import {
  partnerSecretOwner,
  prefixed,
  sealSecret,
  signingSecretOwner,
  streamName,
  type NatsConnection,
} from '@dzpay/platform';
import { createWebhookHandler } from '@dzpay/partner-sdk';
import { benchEvent } from './events.ts';

// The webhooks scenario of `pnpm bench`: a local partner verifying with the partner SDK,
// registered in the directory as the gateway does, and a burst of synthetic AGENCY
// `payment.succeeded` events published to PAYMENTS for the webhook dispatcher to deliver.
// See docs/benchmarks.md.

export interface WebhookBenchDeps {
  nats: NatsConnection;
  prefix: string;
  /** The dispatcher's SECRETS_KEY: the partner's secrets are sealed under it. */
  secretsKey: Buffer;
  scope: MerchantScope;
}

export interface WebhookSummary {
  events: number;
  /** Distinct events answered 2xx by the partner. */
  delivered: number;
  /** 2xx answers beyond the first per event (at-least-once delivery). */
  duplicates: number;
  /** Requests the SDK refused (bad signature, stale timestamp, bad body). */
  rejected: number;
  /** From the first publish to the last event's first 2xx. */
  seconds: number;
  deliveriesPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

interface BenchPartner {
  url: string;
  /** performance.now() of each event's first 2xx answer, by event id. */
  answered: Map<string, number>;
  duplicates(): number;
  rejected(): number;
  close(): Promise<void>;
}

/**
 * A partner on node:http in the bench process, answering `{"success": true}` through the
 * SDK's handler (signature and timestamp checked), and noting when each answer went out.
 */
export async function startBenchPartner(signingSecret: string): Promise<BenchPartner> {
  const answered = new Map<string, number>();
  let duplicates = 0;
  let rejected = 0;
  const sdk = createWebhookHandler({ signingSecret, onEvent: () => undefined });
  const server = createServer((request, response) => {
    const id = request.headers['x-event-id'];
    response.once('finish', () => {
      const at = performance.now();
      if (response.statusCode !== 200 || typeof id !== 'string') rejected += 1;
      else if (answered.has(id)) duplicates += 1;
      else answered.set(id, at);
    });
    sdk(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    duplicates: () => duplicates,
    rejected: () => rejected,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes the partner into the directory bucket as the gateway does, secrets sealed. */
export async function registerBenchPartner(
  deps: WebhookBenchDeps,
  partner: { apiUrl: string; apiSecret: string; signingSecret: string },
): Promise<void> {
  const { merchantId, mode } = deps.scope;
  const kv = await new Kvm(deps.nats).create(streamName(deps.prefix, Buckets.partners));
  const seal = (plain: string, owner: string) =>
    sealSecret(plain, deps.secretsKey, owner).toString('base64');
  const entry: PartnerDirectoryEntry = {
    merchantId,
    mode,
    apiUrl: partner.apiUrl,
    apiSecretSealed: seal(partner.apiSecret, partnerSecretOwner(merchantId, mode)),
    signingSecrets: [
      {
        sealed: seal(partner.signingSecret, signingSecretOwner(merchantId, mode)),
        validUntil: null,
      },
    ],
  };
  await kv.put(partnerDirectoryKey(merchantId, mode), JSON.stringify(entry));
}

/**
 * Publishes `count` outcomes like the payments relay (the event's subject, its id as
 * Nats-Msg-Id), `window` unacknowledged at most, as fast as the stream acknowledges
 * them, and waits until the partner has answered 2xx to every one (or `timeoutMs`).
 * Latency per event: publish acknowledgement (the event is stored, the enqueue the
 * dispatcher consumes) to the partner's first 2xx answer.
 */
export async function measureWebhooks(
  deps: WebhookBenchDeps,
  partner: BenchPartner,
  run: string,
  count: number,
  window = 64,
  timeoutMs = 120_000,
): Promise<WebhookSummary> {
  const js = jetstream(deps.nats);
  const events = Array.from({ length: count }, (_, i) =>
    benchEvent(deps.scope, PaymentEventTypes.succeeded, `WEBHOOK-${run}-${i}`),
  );
  const acked = new Map<string, number>();
  const [duplicatesBefore, rejectedBefore] = [partner.duplicates(), partner.rejected()];
  const start = performance.now();
  let next = 0;
  const publisher = async () => {
    while (next < events.length) {
      const event = events[next++]!;
      await js.publish(prefixed(deps.prefix, subjectOfEvent(event)), JSON.stringify(event), {
        msgID: event.id,
      });
      acked.set(event.id, performance.now());
    }
  };
  await Promise.all(Array.from({ length: window }, publisher));
  const published = performance.now();
  console.log(`webhooks: ${count} events published in ${Math.round(published - start)} ms`);

  const deadline = published + timeoutMs;
  const done = () => events.every((event) => partner.answered.has(event.id));
  while (!done() && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const latencies: number[] = [];
  let last = start;
  for (const event of events) {
    const at = partner.answered.get(event.id);
    if (at === undefined) continue;
    latencies.push(at - acked.get(event.id)!);
    last = Math.max(last, at);
  }
  const seconds = (last - start) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  const ms = (value: number) => Number(value.toFixed(1));
  return {
    events: count,
    delivered: sorted.length,
    duplicates: partner.duplicates() - duplicatesBefore,
    rejected: partner.rejected() - rejectedBefore,
    seconds: Number(seconds.toFixed(3)),
    deliveriesPerSec: Math.round(sorted.length / seconds),
    p50Ms: ms(rank(0.5)),
    p99Ms: ms(rank(0.99)),
    maxMs: ms(sorted.at(-1) ?? NaN),
  };
}
