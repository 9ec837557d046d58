import { jetstream } from '@nats-io/jetstream';
import { subjectOfEvent } from '@dzpay/contracts';
import type { Sql } from './db.ts';
import type { Logger } from './logger.ts';
import { metricsOf } from './metrics.ts';
import { outageLog } from './nats-weather.ts';
import { contextOf, inSpan, natsTraceHeaders, SpanKind, type TraceCarrier } from './tracing.ts';
import { prefixed, type NatsConnection } from './nats.ts';

export interface OutboxRelay {
  /** Publishes every event committed so far; resolves when none is left. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** Events one relay transaction publishes at most. */
const BATCH = 200;

/**
 * How long a publish waits for the stream's acknowledgement. A publish parked at a
 * leader that is leaving gets no answer: the client's default (5 s) held the next batch
 * back that long after a rolling restart moved the leader in 0.2 s. A publish that times
 * out is published again (the stream drops the copy by its Nats-Msg-Id).
 */
const PUBLISH_TIMEOUT_MS = 2_000;

/**
 * Publishes committed events to JetStream, with the event id as Nats-Msg-Id, and marks
 * each one after the stream acknowledged it. A crash between the two republishes the
 * event, which the stream drops as a duplicate within its two-minute window (later,
 * consumers drop it by event id). One replica publishes at a time, under an advisory lock.
 *
 * The order is `created_at`, the start of the transaction that wrote the event, not its
 * commit: Postgres offers no commit order to read. A transaction that began first and
 * committed last (paused between BEGIN and its write) is published before the one that
 * overtook it when one batch reads both. Consumers that care about the order of one
 * entity's events compare a version the event carries (payments: `data.version`).
 */
export async function startOutboxRelay(deps: {
  sql: Sql;
  nats: NatsConnection;
  prefix: string;
  logger: Logger;
  intervalMs: number;
}): Promise<OutboxRelay> {
  const js = jetstream(deps.nats);
  metricsOf(deps.nats)?.watchOutbox(deps.sql);
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  async function publishBatch(): Promise<number> {
    return deps.sql.begin(async (tx) => {
      // One publisher at a time across replicas, so two relays never interleave their
      // batches. The lock is per schema: each service's outbox has its own, sharing one
      // database. Taken by the read itself (evaluated once, before any row): a relay that
      // does not get it reads nothing, and a batch costs one round trip less.
      const rows = await tx<
        { id: string; subject: string; payload: unknown; trace_carrier: TraceCarrier | null }[]
      >`
        select id, subject, payload, trace_carrier from outbox
        where (select pg_try_advisory_xact_lock(hashtext('dzpay:outbox-relay:' || current_schema())))
          and published_at is null
        order by created_at, id
        limit ${BATCH}
        for update skip locked`;
      // Sent in this order on one connection without waiting for each ack, then all acks
      // awaited: the stream stores them in that order, at the speed of a pipeline.
      // Each publish joins the trace that wrote its event (the headers carry it on).
      await Promise.all(
        rows.map((row) => {
          const subject = subjectOf(row);
          return inSpan(
            `outbox publish ${subject}`,
            { kind: SpanKind.PRODUCER, parent: contextOf(row.trace_carrier) },
            () => {
              const hdrs = natsTraceHeaders();
              return js.publish(prefixed(deps.prefix, subject), JSON.stringify(row.payload), {
                msgID: row.id,
                timeout: PUBLISH_TIMEOUT_MS,
                ...(hdrs ? { headers: hdrs } : {}),
              });
            },
          );
        }),
      );
      if (rows.length > 0) {
        await tx`update outbox set published_at = now() where id in ${tx(rows.map((row) => row.id))}`;
      }
      return rows.length;
    });
  }

  async function drain(): Promise<void> {
    // A batch short of BATCH took everything committed before it read: anything
    // committed since notified, and its drain is queued (below). Asking once more to
    // find nothing would cost every drain an empty transaction.
    while (!stopped && (await publishBatch()) === BATCH) {
      // a full batch: more may be waiting
    }
  }

  // One drain queued behind the running one is enough: it reads everything committed
  // up to its start, so a burst of notifications costs one more drain, not one each.
  let queued = false;
  const weather = outageLog(deps.logger, {
    waits: 'outbox relay waits: events stay in the outbox and are published once it answers',
    back: 'outbox relay publishes again',
    failed: 'outbox relay failed',
  });
  const kick = () => {
    if (queued) return;
    queued = true;
    running = running
      .then(() => {
        queued = false;
        return drain();
      })
      .then(weather.cleared, weather.failed);
  };
  // Woken by each commit that adds events (trigger in migration 001), and polled as a
  // safety net for a notification missed during a reconnect.
  const listening = await deps.sql.listen('dzpay_outbox', kick, kick);
  const timer = setInterval(kick, deps.intervalMs);

  return {
    flush: async () => {
      kick();
      await running;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await listening.unlisten();
      await running;
    },
  };
}

/**
 * The subject the event itself calls for: a row written by an older writer keeps the
 * subject of its time (the layout before events named whom they concern), which
 * readers may no longer listen to. A payload that is no event (no writer of ours makes
 * one) goes out on its row's subject, for its readers to drop, instead of holding back
 * every event after it.
 */
function subjectOf(row: { subject: string; payload: unknown }): string {
  try {
    return subjectOfEvent(row.payload);
  } catch {
    return row.subject;
  }
}
