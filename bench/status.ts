import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  PaymentEventTypes,
  Rpc,
  type MerchantScope,
  type PaymentEvent,
  type StatusRecord,
} from '@dzpay/contracts';
import { requestRpc, type NatsConnection } from '@dzpay/platform';
import { benchEvent, publishPaymentEvent } from './events.ts';

// The status scenarios of `pnpm bench`: synthetic AGENCY events published to PAYMENTS
// the way the payments relay publishes them, and the status service's answers. See
// docs/benchmarks.md.

/** Latencies in milliseconds, summarised; nearest-rank percentiles. */
export interface LagSummary {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Where the bench publishes and asks: the deployment's prefix and the bench merchant. */
export interface StatusBenchDeps {
  nats: NatsConnection;
  prefix: string;
  scope: MerchantScope;
  /** The public endpoint and the merchant's key: the full-path lag asks as a partner. */
  gateway?: { baseUrl: string; key: string };
}

/**
 * A `payment.processing` snapshot of a new AGENCY attempt on `reference`, holding its
 * lock for `lockMs` (the status answer is `locked` until then).
 */
function processingEvent(scope: MerchantScope, reference: string, lockMs: number): PaymentEvent {
  const now = new Date();
  return benchEvent(scope, PaymentEventTypes.processing, reference, {
    lockExpiresAt: new Date(now.getTime() + lockMs).toISOString(),
    locksReference: true,
    createdAt: now.toISOString(),
  });
}

/** Publishes like the payments relay and resolves on the stream's acknowledgement: the event is stored. */
async function publish(deps: StatusBenchDeps, event: PaymentEvent): Promise<void> {
  await publishPaymentEvent(deps.nats, deps.prefix, event);
}

/**
 * Through the gateway's status endpoint when `deps.gateway` is set (what a partner sees,
 * the gateway's memory included), else status itself over NATS.
 */
async function statusOf(deps: StatusBenchDeps, reference: string): Promise<StatusRecord> {
  if (!deps.gateway) {
    return requestRpc(deps.nats, deps.prefix, Rpc.statusReferenceGet, { ...deps.scope, reference });
  }
  const { baseUrl, key } = deps.gateway;
  const response = await fetch(`${baseUrl}/partner/payments/v1/${reference}/status`, {
    headers: { 'x-api-key': key },
  });
  const body = (await response.json()) as { data?: StatusRecord };
  if (response.status !== 200 || !body.data) {
    throw new Error(`status of ${reference} answered ${response.status}`);
  }
  return body.data;
}

/**
 * Asks status over NATS, one request in flight, until `done` holds for its answer;
 * resolves with the time the first such answer arrived. The resolution is one round
 * trip (status reads Postgres on each query), well under a millisecond when idle.
 */
async function pollUntil(
  deps: StatusBenchDeps,
  reference: string,
  done: (record: StatusRecord) => boolean,
  timeoutMs = 10_000,
): Promise<{ at: number; record: StatusRecord }> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const record = await statusOf(deps, reference);
    const at = performance.now();
    if (done(record)) return { at, record };
    if (at > deadline) {
      throw new Error(`status of ${reference} still ${record.stage} after ${timeoutMs} ms`);
    }
  }
}

/**
 * Publishes one locking attempt for each reference and waits until status answers
 * `locked` for all of them: the references the status-query scenario rotates over.
 */
export async function seedLockedReferences(
  deps: StatusBenchDeps,
  references: readonly string[],
): Promise<void> {
  // An hour: the lock outlives the run, so every answer stays `locked`.
  for (const reference of references)
    await publish(deps, processingEvent(deps.scope, reference, 3_600_000));
  for (const reference of references) {
    await pollUntil(deps, reference, (record) => record.stage === 'locked', 30_000);
  }
}

/**
 * One declined attempt for each reference, and waits until status answers `released`
 * for all of them: the references the status-query-free scenario rotates over. Payments
 * holds no row of these synthetic attempts, so each answer is the full price of a free
 * stage: the gateway asks status, status asks payments' rows (docs/status.md).
 */
export async function seedReleasedReferences(
  deps: StatusBenchDeps,
  references: readonly string[],
): Promise<void> {
  for (const reference of references) {
    const paymentId = randomUUID();
    const createdAt = new Date().toISOString();
    const attempt = { paymentId, locksReference: true, createdAt };
    await publish(
      deps,
      benchEvent(deps.scope, PaymentEventTypes.processing, reference, {
        ...attempt,
        lockExpiresAt: new Date(Date.now() + 900_000).toISOString(),
      }),
    );
    await publish(
      deps,
      benchEvent(deps.scope, PaymentEventTypes.failed, reference, {
        ...attempt,
        status: 'failed',
        lockExpiresAt: null,
      }),
    );
  }
  for (const reference of references) {
    await pollUntil(deps, reference, (record) => record.stage === 'released', 30_000);
  }
}

/**
 * Projection lag of synthetic events: for `samples` fresh references, one at a time and
 * `gapMs` apart, the time from JetStream's publish acknowledgement (the event is stored)
 * to the first status answer that shows the reference `locked`.
 */
export async function measureEventLag(
  deps: StatusBenchDeps,
  run: string,
  samples: number,
  gapMs: number,
): Promise<LagSummary> {
  const lags: number[] = [];
  for (let i = 0; i < samples; i++) {
    const reference = `LAG-${run}-${i}`;
    const event = processingEvent(deps.scope, reference, 900_000);
    await publish(deps, event);
    const acked = performance.now();
    const { at } = await pollUntil(deps, reference, (record) => record.stage === 'locked');
    lags.push(at - acked);
    await sleep(gapMs);
  }
  return summarise(lags);
}

/**
 * Lag of the whole path, payments' outbox and relay included: a payer starts paying a
 * partner's product (`POST /pay/{merchant}/{reference}` through the gateway; payments
 * asks the partner, then commits the attempt with its payment.created event), the relay
 * publishes it, status projects it. Measured from the attempt's `createdAt` (the
 * payments row's insert, in the transaction that commits the event) to the first
 * status answer naming the attempt. Each sample pays a new product reference; samples
 * are taken one at a time, `gapMs` apart, while `more(taken)` holds.
 */
export async function measurePaymentLag(
  deps: StatusBenchDeps,
  publicBaseUrl: string,
  run: string,
  more: (taken: number) => boolean,
  gapMs: number,
): Promise<LagSummary> {
  const lags: number[] = [];
  for (let i = 0; more(i); i++) {
    // Never a reference the event lag used: its synthetic attempt would answer first.
    const reference = `PAYLAG-${run}-${i}`;
    const response = await fetch(
      `${publicBaseUrl}/pay/${deps.scope.merchantId}/${reference}?mode=${deps.scope.mode}`,
      { method: 'POST', redirect: 'manual' },
    );
    if (response.status !== 303 || !response.headers.get('location')?.startsWith('/checkout/')) {
      throw new Error(`POST /pay answered ${response.status}: ${await response.text()}`);
    }
    await response.body?.cancel();
    const { record } = await pollUntil(
      deps,
      reference,
      (candidate) => candidate.paymentId !== null,
    );
    // Wall clock on both sides (Postgres's now() and this process's): one machine.
    lags.push(Date.now() - Date.parse(record.payment!.createdAt));
    await sleep(gapMs);
  }
  return summarise(lags);
}

/**
 * A burst of `count` locking attempts on fresh references, published to PAYMENTS like
 * the relay does, `window` unacknowledged at most, as fast as the stream takes them.
 * Resolves once status answers `locked` for the last one acknowledged: status applies
 * one stream in order, so by then it has projected the whole burst.
 */
export async function publishBurst(
  deps: StatusBenchDeps,
  run: string,
  count: number,
  window = 64,
): Promise<{ publishedMs: number; projectedMs: number }> {
  const start = performance.now();
  let next = 0;
  let last = '';
  const publisher = async () => {
    while (next < count) {
      const reference = `BURST-${run}-${next++}`;
      await publish(deps, processingEvent(deps.scope, reference, 900_000));
      last = reference;
    }
  };
  await Promise.all(Array.from({ length: window }, publisher));
  const published = performance.now();
  await pollUntil(deps, last, (record) => record.stage === 'locked', 120_000);
  return {
    publishedMs: Math.round(published - start),
    projectedMs: Math.round(performance.now() - start),
  };
}

/**
 * A partner's product lookup that knows every reference (2 500 DZD): the full-path lag
 * measures dzpay, not the partner.
 */
export async function startProductPartner(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const reference = decodeURIComponent((request.url ?? '/').slice(1));
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ reference, amount: 2500, currency: 'DZD', label: 'Bench product' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function summarise(lags: number[]): LagSummary {
  const sorted = [...lags].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
  const ms = (value: number) => Number(value.toFixed(1));
  return {
    samples: sorted.length,
    p50Ms: ms(rank(0.5)),
    p99Ms: ms(rank(0.99)),
    maxMs: ms(sorted.at(-1)!),
  };
}
