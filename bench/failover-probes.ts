// The probes of the failover scenario (bench/failover.ts): one per path, each sending an
// event every PROBE_GAP_MS and noting when it was acknowledged and delivered.
import { setTimeout as sleep } from 'node:timers/promises';
import type { JetStreamClient } from '@nats-io/jetstream';
import { PaymentEventTypes, Rpc, subjectOfEvent, type PaymentEvent } from '@dzpay/contracts';
import { prefixed, requestRpc } from '@dzpay/platform';
import { benchEvent } from './events.ts';
import type { FailoverDeps, Harness } from './failover.ts';

const PROBE_GAP_MS = 100;
const OUTBOX_POLL_MS = 50;
/** How long a path may take to deliver again, and a wait for a leader, at most. */
export const RESUME_LIMIT_MS = 60_000;

/** One event a probe sent: when it left, was acknowledged (answer, PubAck), was delivered. */
interface Sent {
  sentAt: number;
  ackedAt?: number;
  deliveredAt?: number;
}

export interface Probe {
  /** In the order sent, failed sends included (never delivered). */
  readonly sent: readonly Sent[];
  readonly failedSends: number;
  /** A stop at `at`: the first event sent after it is watched for closely. */
  mark(at: number): void;
  stop(): Promise<void>;
}

/** What a probe's observer is told: whether to stop, and the latest stop's time. */
interface Watch {
  stopped(): boolean;
  markedAt(): number;
}

/**
 * Sends one event every PROBE_GAP_MS without waiting for earlier ones (an outage must not
 * slow the sending down); `send` throws when the event was not accepted. `observe` sets
 * each event's deliveredAt until stopped.
 */
function probeLoop(
  send: (n: number, sent: Sent) => Promise<void>,
  observe: (watch: Watch) => Promise<void>,
): Probe {
  const sent: Sent[] = [];
  let failed = 0;
  let stopped = false;
  let markedAt = Infinity;
  const inFlight = new Set<Promise<void>>();
  const sending = (async () => {
    for (let n = 0; !stopped; n++) {
      const entry: Sent = { sentAt: performance.now() };
      sent.push(entry);
      const work = send(n, entry).then(
        () => void (entry.ackedAt = performance.now()),
        () => void failed++,
      );
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
      await sleep(PROBE_GAP_MS);
    }
    await Promise.allSettled(inFlight);
  })();
  const observing = observe({ stopped: () => stopped, markedAt: () => markedAt });
  return {
    sent,
    get failedSends() {
      return failed;
    },
    mark: (at) => void (markedAt = at),
    async stop() {
      stopped = true;
      await Promise.all([sending, observing]);
    },
  };
}

/**
 * Resolves with the first delivery (performance.now()) of an event sent at or after
 * `since`, or null after RESUME_LIMIT_MS. That is the path's resume time: the first
 * event a payer or partner sends during the outage that gets through (events stuck since
 * before the stop come out at about the same time, in stream order).
 */
export async function deliveredSince(probe: Probe, since: number): Promise<number | null> {
  const deadline = since + RESUME_LIMIT_MS;
  for (;;) {
    let first: number | undefined;
    for (let i = probe.sent.length - 1; i >= 0 && probe.sent[i]!.sentAt >= since; i--) {
      const at = probe.sent[i]!.deliveredAt;
      if (at !== undefined && (first === undefined || at < first)) first = at;
    }
    if (first !== undefined) return first;
    if (performance.now() > deadline) return null;
    await sleep(10);
  }
}

/** Publishes like the payments relay: the event's subject, its id as Nats-Msg-Id. */
async function publishEvent(js: JetStreamClient, prefix: string, event: PaymentEvent) {
  const subject = prefixed(prefix, subjectOfEvent(event));
  await js.publish(subject, JSON.stringify(event), { msgID: event.id });
}

/**
 * Publishing: a payment registered through the gateway (its payment.created event goes
 * to payments' outbox), delivered once the relay has marked it published, which it does
 * right after the stream's acknowledgement. Read from the outbox every OUTBOX_POLL_MS,
 * not from a subscription on the subject: a plain subscriber sees a publish the stream
 * may not have stored, and its interest turns the relay's "no responders" (an immediate
 * error while the stream has no leader) into a 5 s timeout.
 */
export function publishingProbe(deps: FailoverDeps): Probe {
  const byReference = new Map<string, Sent>();
  return probeLoop(
    async (n, sent) => {
      const reference = `FAILOVER-P-${deps.run}-${n}`;
      byReference.set(reference, sent);
      const response = await fetch(`${deps.gateway.baseUrl}/api/v1/payments`, {
        method: 'POST',
        headers: { 'x-api-key': deps.gateway.key, 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: 250_000,
          currency: 'DZD',
          reference,
          successUrl: 'https://shop.example/ok',
        }),
        signal: AbortSignal.timeout(RESUME_LIMIT_MS),
      }).catch((error: unknown) => {
        byReference.delete(reference);
        throw error;
      });
      await response.body?.cancel();
      if (!response.ok) {
        byReference.delete(reference);
        throw new Error(`register answered ${response.status}`);
      }
    },
    async (watch) => {
      // published_at only grows: one relay publishes, a batch at a time.
      let cursor = new Date(0);
      while (!watch.stopped()) {
        const rows = await deps.payments<{ reference: string; published: Date }[]>`
          select payload->'data'->>'reference' as reference, published_at as published
          from outbox where published_at > ${cursor} order by published_at`.catch(() => []);
        const at = performance.now();
        for (const row of rows) {
          const sent = byReference.get(row.reference);
          if (sent) sent.deliveredAt = at;
          byReference.delete(row.reference);
          cursor = row.published;
        }
        await sleep(OUTBOX_POLL_MS);
      }
    },
  );
}

/**
 * Status projection: a locking AGENCY attempt published to PAYMENTS, delivered once
 * status answers `locked` for its reference (asked over NATS, as bench/status.ts does).
 * Status applies the stream in order; the oldest waiting event is asked about, and the
 * first one sent after the latest stop, so its time is not that of a walk through the
 * backlog before it.
 */
export function statusProbe(deps: FailoverDeps, harness: Harness): Probe {
  const waiting: { reference: string; sent: Sent }[] = [];
  const locked = async (reference: string) => {
    const record = await requestRpc(
      harness.nc(),
      deps.prefix,
      Rpc.statusReferenceGet,
      { ...deps.scope, reference },
      { timeoutMs: 500 },
    ).catch(() => null);
    return record?.stage === 'locked';
  };
  return probeLoop(
    async (n, sent) => {
      const reference = `FAILOVER-S-${deps.run}-${n}`;
      const entry = { reference, sent };
      waiting.push(entry);
      const now = Date.now();
      const event = benchEvent(deps.scope, PaymentEventTypes.processing, reference, {
        lockExpiresAt: new Date(now + 900_000).toISOString(),
        locksReference: true,
        createdAt: new Date(now).toISOString(),
      });
      await publishEvent(harness.js(), deps.prefix, event).catch((error: unknown) => {
        waiting.splice(waiting.indexOf(entry), 1);
        throw error;
      });
    },
    async (watch) => {
      while (!watch.stopped()) {
        // Stuck for longer than any outage measured: lost, not waiting.
        while (waiting[0] && performance.now() - waiting[0].sent.sentAt > RESUME_LIMIT_MS) {
          waiting.shift();
        }
        const oldest = waiting[0];
        const marked = waiting.find((entry) => entry.sent.sentAt >= watch.markedAt());
        const asked = [...new Set([oldest, marked])].flatMap((entry) => (entry ? [entry] : []));
        const answers = await Promise.all(asked.map((entry) => locked(entry.reference)));
        const at = performance.now();
        asked.forEach((entry, i) => {
          if (!answers[i]) return;
          entry.sent.deliveredAt = at;
          waiting.splice(waiting.indexOf(entry), 1);
        });
        if (!answers.some(Boolean)) await sleep(10);
      }
    },
  );
}

/**
 * Webhooks: a payment.succeeded published to PAYMENTS, delivered when the partner in this
 * process answered the dispatcher's request for it 2xx (its clock is this process's).
 */
export function webhooksProbe(deps: FailoverDeps, harness: Harness): Probe {
  const waiting = new Map<string, Sent>();
  return probeLoop(
    async (n, sent) => {
      const event = benchEvent(
        deps.scope,
        PaymentEventTypes.succeeded,
        `FAILOVER-W-${deps.run}-${n}`,
      );
      waiting.set(event.id, sent);
      await publishEvent(harness.js(), deps.prefix, event).catch((error: unknown) => {
        waiting.delete(event.id);
        throw error;
      });
    },
    async (watch) => {
      while (!watch.stopped()) {
        for (const [id, sent] of waiting) {
          const at = deps.partner.answered.get(id);
          if (at === undefined) continue;
          sent.deliveredAt = at;
          waiting.delete(id);
        }
        await sleep(10);
      }
    },
  );
}
